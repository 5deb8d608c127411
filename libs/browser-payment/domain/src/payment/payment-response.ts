import { addressForResponse } from '@gateway/api-fields';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import type { JsonObject, LineItem } from '@gateway/contracts';
import { Money, quantityToJson } from '@gateway/money';
import { requestOf, StoredRequest } from './stored-request';

/** Effective provider_a options: the request's, or the spec's defaults (docs/decisions/browser-payment-journey.md, Terms). */
export function providerAOptions(request: StoredRequest) {
  const given = request.browserPayment.provider_a;
  return {
    operation: given?.operation ?? 'PAY',
    paymentConfirmation: given?.paymentConfirmation ?? 'CONFIRM_AT_PROVIDER',
    displayShippingAddress: given?.displayShippingAddress ?? true,
    overrideShippingAddress: given?.overrideShippingAddress ?? true,
  } as const;
}

/**
 * A browser payment's response body as of now: the spec's shared response groups that apply
 * (browserPayment with the interaction and its times, order, response, result, shipping,
 * sourceOfFunds with the provider's details, transaction). The ledger sets the fields it owns
 * (order status and totals, transaction id/type/amount/currency, result, gatewayCode) when it
 * records it; the edge adds merchant and version. `redirectUrl` only in the initiate's answer:
 * the token is single-journey and not stored in clear here.
 */
export function paymentResponse(payment: BrowserPaymentRow, acquirerId: string, redirectUrl?: string): JsonObject {
  const request = requestOf(payment);
  return {
    browserPayment: browserPaymentGroup(payment, request, redirectUrl),
    order: { ...orderGroup(request, payment.currency), amount: Money.of(payment.amount, payment.currency).toJSON(), currency: payment.currency },
    response: { gatewayCode: payment.gatewayCode },
    result: payment.result,
    ...(request.shipping ? { shipping: shippingGroup(request.shipping) } : {}),
    sourceOfFunds: sourceOfFundsGroup(payment, request),
    transaction: {
      acquirer: { id: acquirerId, transactionId: payment.providerReference },
      ...(request.transaction?.merchantNote ? { merchantNote: request.transaction.merchantNote } : {}),
      ...(request.transaction?.reference ? { reference: request.transaction.reference } : {}),
    },
    ...(request.partnerSolutionId ? { partnerSolutionId: request.partnerSolutionId } : {}),
  };
}

/** Order-level data the ledger keeps for retrieval (order.details): the order as the merchant described it. */
export function orderDetails(payment: BrowserPaymentRow): JsonObject {
  const request = requestOf(payment);
  return {
    ...orderGroup(request, payment.currency),
    ...(request.shipping ? { shipping: shippingGroup(request.shipping) } : {}),
    ...(request.customer ? { customer: plain(request.customer) } : {}),
  };
}

function browserPaymentGroup(payment: BrowserPaymentRow, request: StoredRequest, redirectUrl: string | undefined): JsonObject {
  const times: [string, Date | null][] = [
    ['timeInitiated', payment.timeInitiated],
    ['timeRedirected', payment.timeRedirected],
    ['timeReturned', payment.timeReturned],
    ['timeCompleted', payment.timeCompleted],
  ];
  const interaction: JsonObject = { status: payment.interactionStatus };
  for (const [name, time] of times) {
    if (time) {
      interaction[name] = new Date(time).toISOString();
    }
  }
  return {
    interaction,
    ...(payment.provider === 'provider_a' ? { provider_a: { ...providerAOptions(request) } } : {}),
    ...(redirectUrl ? { redirectUrl } : {}),
    returnUrl: payment.returnUrl,
  };
}

function orderGroup(request: StoredRequest, currency: string): JsonObject {
  const order = request.order;
  const amount = (value: string) => Money.of(value, currency).toJSON();
  const group: JsonObject = {};
  for (const key of ['description', 'reference', 'customerNote'] as const) {
    if (order[key] !== undefined) {
      group[key] = order[key];
    }
  }
  if (order.custom) {
    group.custom = { ...order.custom };
  }
  for (const key of ['itemAmount', 'shippingAndHandlingAmount', 'taxAmount'] as const) {
    const value = order[key];
    if (value !== undefined) {
      group[key] = amount(value);
    }
  }
  if (order.item) {
    group.item = order.item.map((item) => lineItem(item, amount));
  }
  if (order.tax) {
    group.tax = order.tax.map((tax) => ({
      ...(tax.amount !== undefined ? { amount: amount(tax.amount) } : {}),
      ...(tax.type !== undefined ? { type: tax.type } : {}),
    }));
  }
  return group;
}

function lineItem(item: LineItem, amount: (value: string) => number): JsonObject {
  const out: JsonObject = { name: item.name, quantity: quantityToJson(item.quantity), unitPrice: amount(item.unitPrice) };
  if (item.unitTaxAmount !== undefined) {
    out.unitTaxAmount = amount(item.unitTaxAmount);
  }
  for (const key of ['brand', 'category', 'description', 'sku'] as const) {
    if (item[key] !== undefined) {
      out[key] = item[key];
    }
  }
  return out;
}

/** `sourceOfFunds` as every response about the payment shows it (the provider's captures and refunds too). */
export function sourceOfFundsOf(payment: BrowserPaymentRow): JsonObject {
  return sourceOfFundsGroup(payment, requestOf(payment));
}

function sourceOfFundsGroup(payment: BrowserPaymentRow, request: StoredRequest): JsonObject {
  const bank = request.sourceOfFunds.provided?.provider_b;
  const provided: JsonObject | null =
    payment.provider === 'provider_b' && bank
      ? { provider_b: { bankIdentifier: bank.bankIdentifier } }
      : payment.providerDetails
        ? { [payment.provider]: { ...payment.providerDetails } }
        : null;
  return { type: request.sourceOfFunds.type, ...(provided ? { provided } : {}) };
}

/** The shipping group as responses carry it: its address under the spec's street/street2 rule (street joined, no street2). */
function shippingGroup(shipping: NonNullable<StoredRequest['shipping']>): JsonObject {
  const group = plain(shipping);
  if (shipping.address) {
    group.address = addressForResponse(shipping.address);
  }
  return group;
}

function plain(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
