import { lookupBin } from '@gateway/acquirer';
import { addressForResponse } from '@gateway/api-fields';
import type { JsonObject, JsonValue, LineItem, MaskedCard, RefundRequest } from '@gateway/contracts';
import { maskPan } from '@gateway/crypto';
import { Money, quantityToJson } from '@gateway/money';
import { storedAcquirerId } from '../card-operation/acquirer-reference';
import type { RequestCard } from './refund-card';
import type { RefundOutcome } from './refund-outcome';
import type { RefundPlan } from './refund-plan';

export interface RefundResponseInput {
  request: RefundRequest;
  plan: RefundPlan;
  /** The refunded transaction's stored response (linked refunds): its 3DSecure and sourceOfFunds. */
  targetBody: JsonObject | null;
  /** Absent while the refund is reserved and its side effect not yet known. */
  outcome?: RefundOutcome;
}

/** `order.*` request fields kept on the order and echoed in the response's order group. */
const ORDER_FIELDS = [
  'acceptPartialAmount',
  'custom',
  'customerNote',
  'customerOrderDate',
  'customerReference',
  'productSKU',
  'reference',
  'requestorName',
  'taxRegistrationId',
  'walletIndicator',
  'walletProvider',
] as const;

/**
 * The refund's response body, without what the ledger owns and completes (order id, amounts,
 * status, totals and times; transaction id, type, amount, currency, targetTransactionId;
 * result; response.gatewayCode; timeOfRecord) and what the edge adds (merchant, version,
 * correlationId). Everything the request gave that the spec returns is echoed; card data only
 * masked; DCC only on an order's first transaction.
 */
export function refundResponseBody(input: RefundResponseInput): JsonObject {
  const { request, plan, targetBody, outcome } = input;
  const body: JsonObject = {
    order: orderGroup(request),
    response: responseGroup(outcome),
    transaction: transactionGroup(request, plan, targetBody, outcome),
  };
  const groups: Record<string, JsonValue | undefined> = {
    '3DSecure': targetBody?.['3DSecure'],
    authorizationResponse: outcome?.authorizationResponse,
    billing: request.billing?.address ? { address: addressForResponse(request.billing.address) } : undefined,
    currencyConversion: plan.linked ? undefined : currencyConversionGroup(request),
    customer: plain(request.customer),
    device: plain(request.device),
    externalTokenProvider: plain(request.externalTokenProvider),
    partnerSolutionId: request.partnerSolutionId,
    posTerminal: plain(request.posTerminal),
    shipping: shippingGroup(request),
    sourceOfFunds: sourceOfFundsGroup(request, plan, targetBody, outcome),
    userId: request.userId,
  };
  for (const [key, value] of Object.entries(groups)) {
    if (value !== undefined) {
      body[key] = value;
    }
  }
  return body;
}

/**
 * What the refund keeps on the order (`order.details`, merged key by key into what the order
 * holds; retrieval returns it at the order's top level): the order group's fields, billing,
 * customer and shipping (spec refund rule 3: supplied values update the order's), and the DCC
 * request of an order's first transaction.
 */
export function refundOrderDetails(request: RefundRequest, plan: RefundPlan): JsonObject {
  const details: JsonObject = { ...pickOrderFields(request) };
  const billing = request.billing?.address ? { address: addressForResponse(request.billing.address) } : undefined;
  const extra: Record<string, JsonValue | undefined> = {
    billing,
    customer: plain(request.customer),
    shipping: shippingGroup(request),
    currencyConversion: plan.linked ? undefined : plain(request.currencyConversion),
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) {
      details[key] = value;
    }
  }
  return details;
}

function pickOrderFields(request: RefundRequest): JsonObject {
  const order = request.order ?? {};
  const picked: JsonObject = {};
  for (const field of ORDER_FIELDS) {
    const value = (order as Record<string, JsonValue | undefined>)[field];
    if (value !== undefined) {
      picked[field] = typeof value === 'object' ? structuredClone(value) : value;
    }
  }
  return picked;
}

function orderGroup(request: RefundRequest): JsonObject {
  const group = pickOrderFields(request);
  if (request.order?.notificationUrl !== undefined) {
    group.notificationUrl = request.order.notificationUrl;
  }
  return group;
}

function responseGroup(outcome: RefundOutcome | undefined): JsonObject {
  return {
    ...(outcome?.acquirerCode ? { acquirerCode: outcome.acquirerCode } : {}),
    ...(outcome?.acquirerMessage ? { acquirerMessage: outcome.acquirerMessage } : {}),
  };
}

function transactionGroup(
  request: RefundRequest,
  plan: RefundPlan,
  targetBody: JsonObject | null,
  outcome: RefundOutcome | undefined,
): JsonObject {
  const transaction = request.transaction;
  const currency = plan.amount.currency;
  const group: JsonObject = {};
  const acquirer = refundAcquirer(plan, targetBody, outcome);
  if (transaction.acquirer?.customData !== undefined) {
    acquirer.customData = transaction.acquirer.customData;
  }
  if (Object.keys(acquirer).length > 0) group.acquirer = acquirer;
  if (transaction.item) group.item = transaction.item.map((item) => lineItemForResponse(item, currency));
  if (transaction.merchantNote !== undefined) group.merchantNote = transaction.merchantNote;
  if (outcome?.receipt !== undefined) group.receipt = outcome.receipt;
  if (transaction.reference !== undefined) group.reference = transaction.reference;
  if (transaction.source !== undefined) group.source = transaction.source;
  if (plan.taxAmount) group.taxAmount = plan.taxAmount.toJSON();
  return group;
}

/**
 * The spec always provides transaction.acquirer.id: the acquirer that answered; before it does
 * (a refund reserved, waiting for approval, or of unknown outcome), where the refund goes: a
 * linked refund's target's acquirer (a provider's for a browser payment), a standalone refund's
 * the merchant's card acquirer (RefundPlan.acquirerId).
 */
function refundAcquirer(plan: RefundPlan, targetBody: JsonObject | null, outcome: RefundOutcome | undefined): JsonObject {
  if (outcome?.acquirer) return { ...outcome.acquirer };
  if (plan.linked) return acquirerIdOf(targetBody);
  return plan.acquirerId !== undefined ? { id: plan.acquirerId } : {};
}

function acquirerIdOf(targetBody: JsonObject | null): JsonObject {
  const id = storedAcquirerId(targetBody);
  return id !== undefined ? { id } : {};
}

/** Response line items: quantity an integer, prices DecOut numbers rendered from the exact decimals. */
export function lineItemForResponse(item: LineItem, currency: string): JsonObject {
  const out: JsonObject = { name: item.name, quantity: quantityToJson(item.quantity), unitPrice: Money.of(item.unitPrice, currency).toJSON() };
  if (item.unitTaxAmount !== undefined) out.unitTaxAmount = Money.of(item.unitTaxAmount, currency).toJSON();
  for (const key of ['brand', 'category', 'description', 'sku'] as const) {
    if (item[key] !== undefined) out[key] = item[key]!;
  }
  return out;
}

/** DCC is honoured only on an order's first transaction: the uptake (NOT_REQUIRED by default). */
function currencyConversionGroup(request: RefundRequest): JsonObject | undefined {
  const dcc = request.currencyConversion;
  return dcc ? { uptake: dcc.uptake ?? 'NOT_REQUIRED' } : undefined;
}

function shippingGroup(request: RefundRequest): JsonObject | undefined {
  const shipping = request.shipping;
  if (!shipping) {
    return undefined;
  }
  const group: JsonObject = {};
  if (shipping.address) group.address = addressForResponse(shipping.address);
  if (shipping.contact) group.contact = plain(shipping.contact)!;
  if (shipping.method !== undefined) group.method = shipping.method;
  return group;
}

/**
 * A linked refund returns funds to the refunded transaction's source, shown as that
 * transaction's response showed it (stored masked). A standalone refund shows the card it was
 * given or the vault's masked card for its token. Never a full number here: UNMASK is added by
 * the use case to its reply only.
 */
function sourceOfFundsGroup(
  request: RefundRequest,
  plan: RefundPlan,
  targetBody: JsonObject | null,
  outcome: RefundOutcome | undefined,
): JsonValue | undefined {
  if (outcome?.sourceOfFunds) {
    return outcome.sourceOfFunds;
  }
  if (plan.linked) {
    return targetBody?.sourceOfFunds;
  }
  const token = request.sourceOfFunds?.token;
  const card = cardGroup(plan.card, outcome?.card);
  return {
    type: 'CARD',
    ...(token !== undefined ? { token } : {}),
    ...(card ? { provided: { card } } : {}),
  };
}

/**
 * The card refunded to: the acquirer's (or the vault's) profile of it once one answered;
 * before that (reserved, outcome unknown) the request's card, with brand, scheme and funding
 * method (ALWAYS PROVIDED within card) from its BIN, the table the acquirers answer from.
 * Without a number (a token's refund waiting for approval: the vault was not asked) there is
 * no card group: the spec's card always has its number, and the token names the card.
 */
function cardGroup(requested: RequestCard | undefined, refunded: MaskedCard | undefined): JsonObject | undefined {
  const group: JsonObject = {};
  if (refunded) {
    Object.assign(group, plain(refunded));
  } else if (requested?.number !== undefined) {
    const { brand, scheme, fundingMethod } = lookupBin(requested.number.slice(0, 8));
    Object.assign(group, { number: maskPan(requested.number), brand, scheme, fundingMethod });
    if (requested.expiry) group.expiry = { month: String(Number(requested.expiry.month)), year: requested.expiry.year };
  } else {
    return undefined;
  }
  if (requested?.nameOnCard !== undefined) group.nameOnCard = requested.nameOnCard;
  if (requested?.accountType !== undefined) group.accountType = requested.accountType;
  if (requested?.sequenceNumber !== undefined) group.sequenceNumber = requested.sequenceNumber.padStart(3, '0');
  if (requested?.trackDataProvided) group.trackDataProvided = true;
  return group;
}

/** A request group as plain JSON (class-transformer instances carry no extra keys, but copy anyway). */
function plain(value: object | undefined): JsonObject | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as JsonObject);
}
