import { lookupBin } from '@gateway/acquirer';
import { addressForResponse } from '@gateway/api-fields';
import type { CardPaymentRequest, ExplicitCardFields, JsonObject, JsonValue } from '@gateway/contracts';
import { maskPan } from '@gateway/crypto';
import { Money } from '@gateway/money';
import { definedGroups, plain } from '../card-operation/reserved-operation';
import { lineItemForResponse } from '../refund-order/refund-response';
import { agreementForResponse } from '../verification/response/verify-response.assembler';
import type { CardOutcome } from '../card-operation/card-outcome';
import type { CardPaymentPlan } from './card-payment-plan';

/** `order.*` request fields kept on the order and echoed in the response's order group. */
const ORDER_FIELDS = [
  'acceptPartialAmount',
  'custom',
  'customerNote',
  'customerOrderDate',
  'customerReference',
  'description',
  'item',
  'itemAmount',
  'productSKU',
  'reference',
  'requestorName',
  'shippingAndHandlingAmount',
  'tax',
  'taxAmount',
  'taxRegistrationId',
  'walletIndicator',
  'walletProvider',
] as const;

/**
 * The response body of an AUTHORIZE or PAY, without what the ledger owns and completes (order
 * id, amount, status, totals and times; transaction id, type, amount, currency; result;
 * response.gatewayCode; timeOfRecord) and what the edge adds. The card only masked: the
 * acquirer's (or vault's) masked card once known, the request's own masked before.
 *
 * Without an outcome from the acquirer (`outcome` absent: the reservation's PENDING body, which a
 * merchant's retry replays while the call runs, and for good if the process dies; or
 * OUTCOME_UNKNOWN: no answer) the body still has every field the spec ALWAYS PROVIDES, from
 * what the gateway knows before asking: `transaction.acquirer.id` the acquirer it sends the
 * payment to (plan.acquirerId), and the request's card with brand, scheme and funding method
 * from its BIN. It claims nothing only the acquirer can say: no authorizationCode, receipt,
 * authorizationResponse, acquirer codes, CSC or AVS result, nor the acquirer's transaction
 * reference, date and time (docs/decisions/card-payment-rules.md, amendment 2026-11-26 "what a
 * reservation's body shows").
 */
export function cardPaymentResponseBody(request: CardPaymentRequest, plan: CardPaymentPlan, outcome?: CardOutcome): JsonObject {
  return definedGroups({
    agreement: agreementGroup(request, plan),
    authorizationResponse: outcome?.authorizationResponse,
    billing: request.billing?.address ? { address: addressForResponse(request.billing.address) } : undefined,
    customer: plain(request.customer),
    device: plain(request.device),
    order: orderGroup(request),
    partnerSolutionId: request.partnerSolutionId,
    response: responseGroup(outcome),
    shipping: shippingGroup(request),
    sourceOfFunds: sourceOfFundsGroup(request, plan, outcome),
    transaction: transactionGroup(request, plan, outcome),
  });
}

/**
 * What the order keeps (`order.details`; retrieval shows it at the order's top level): as
 * VERIFY's, the agreement the payment ran on with the order's own fields and addresses.
 */
export function cardPaymentOrderDetails(request: CardPaymentRequest, plan: Pick<CardPaymentPlan, 'agreement'>): JsonObject {
  return definedGroups({
    ...pickOrderFields(request),
    agreement: agreementGroup(request, plan),
    billing: request.billing?.address ? { address: addressForResponse(request.billing.address) } : undefined,
    customer: plain(request.customer),
    shipping: shippingGroup(request),
  });
}

/**
 * The order fields as responses (and retrieval, from `order.details`) carry them: amounts as
 * JSON numbers rendered from the request's exact decimals (ARCHITECTURE 4.5), line items as
 * every response's (quantity an integer, prices numbers), the rest as given.
 */
function pickOrderFields(request: CardPaymentRequest): Record<string, JsonValue | undefined> {
  const order = plain(request.order) ?? {};
  const { currency } = request.order;
  const amount = (value: string | undefined) => (value === undefined ? undefined : Money.of(value, currency).toJSON());
  return {
    ...Object.fromEntries(ORDER_FIELDS.map((field) => [field, order[field]])),
    item: request.order.item?.map((item) => lineItemForResponse(item, currency)),
    itemAmount: amount(request.order.itemAmount),
    shippingAndHandlingAmount: amount(request.order.shippingAndHandlingAmount),
    tax: request.order.tax?.map((tax) => definedGroups({ amount: amount(tax.amount), type: tax.type })),
    taxAmount: amount(request.order.taxAmount),
  };
}

/** The agreement the payment ran on (the request's, filled from the established one). */
function agreementGroup(request: CardPaymentRequest, plan: Pick<CardPaymentPlan, 'agreement'>): JsonObject | undefined {
  return plan.agreement ? agreementForResponse(plan.agreement, request.order.currency) : undefined;
}

function orderGroup(request: CardPaymentRequest): JsonObject {
  return definedGroups({ ...pickOrderFields(request), notificationUrl: request.order.notificationUrl });
}

function responseGroup(outcome: CardOutcome | undefined): JsonObject {
  return definedGroups({
    acquirerCode: outcome?.acquirerCode,
    acquirerMessage: outcome?.acquirerMessage,
    cardSecurityCode: outcome?.cardSecurityCode,
    cardholderVerification: outcome?.avs ? { avs: outcome.avs } : undefined,
  });
}

/**
 * transaction.requestedAmount: the amount asked for, when the issuer approved less
 * (PARTIALLY_APPROVED); transaction.amount and order.amount then hold the approved amount.
 */
function transactionGroup(request: CardPaymentRequest, plan: CardPaymentPlan, outcome: CardOutcome | undefined): JsonObject {
  const transaction = request.transaction;
  const acquirer = acquirerGroup(plan, outcome);
  if (transaction?.acquirer?.customData !== undefined) acquirer.customData = transaction.acquirer.customData;
  const partial = isPartialApproval(plan, outcome);
  return definedGroups({
    acquirer: Object.keys(acquirer).length > 0 ? acquirer : undefined,
    authorizationCode: outcome?.authorizationCode,
    frequency: transaction?.frequency,
    merchantNote: transaction?.merchantNote,
    receipt: outcome?.receipt,
    reference: transaction?.reference,
    requestedAmount: partial ? plan.amount.toJSON() : undefined,
    source: transaction?.source,
    taxAmount: taxOfTransaction(plan, outcome)?.toJSON(),
  });
}

/**
 * transaction.acquirer (ALWAYS PROVIDED, its id too): as the acquirer answered it; before an
 * answer, the id of the acquirer the payment is sent to, and nothing it has not said.
 */
function acquirerGroup(plan: CardPaymentPlan, outcome: CardOutcome | undefined): JsonObject {
  if (outcome?.acquirer) return { ...outcome.acquirer };
  return plan.acquirerId !== undefined ? { id: plan.acquirerId } : {};
}

function isPartialApproval(plan: CardPaymentPlan, outcome: CardOutcome | undefined): boolean {
  return outcome?.approvedAmount !== undefined && !outcome.approvedAmount.equals(plan.amount);
}

/**
 * The tax of the transaction, answered and recorded with it: the request's `order.taxAmount`,
 * which is part of the amount asked for. When the issuer approved only part of it
 * (PARTIALLY_APPROVED) the tax of the part approved is not known, and the whole request's tax
 * could exceed it: none is kept, so a full refund has no default tax and the merchant gives it
 * (docs/decisions/test-acquirer-partial-approvals.md, amendment 2026-11-26). `order.taxAmount`
 * still echoes the request, as the order's other sub-totals do.
 */
export function taxOfTransaction(plan: CardPaymentPlan, outcome: CardOutcome | undefined): Money | null {
  return isPartialApproval(plan, outcome) ? null : plan.taxAmount;
}

function shippingGroup(request: CardPaymentRequest): JsonObject | undefined {
  const shipping = request.shipping;
  if (!shipping) {
    return undefined;
  }
  return definedGroups({
    address: shipping.address ? addressForResponse(shipping.address) : undefined,
    contact: plain(shipping.contact),
    method: shipping.method,
  });
}

/**
 * The card as the acquirer (or the vault) answered it, whose brand, scheme and funding method
 * win over the BIN table's; before an answer, the request's card (requestedCard).
 */
function sourceOfFundsGroup(request: CardPaymentRequest, plan: CardPaymentPlan, outcome: CardOutcome | undefined): JsonObject {
  const token = request.sourceOfFunds?.token;
  const card = outcome?.card ? { ...plain(outcome.card)! } : requestedCard(plan.explicit);
  if (card && plan.explicit.nameOnCard !== undefined) card.nameOnCard = plan.explicit.nameOnCard;
  return definedGroups({
    type: 'CARD',
    token,
    provided: card ? { card } : undefined,
  });
}

/**
 * The request's own card before anyone answered: its number masked 6.4, its expiry, and brand,
 * scheme and funding method (ALWAYS PROVIDED within card) from its BIN, the table the acquirers
 * answer from. Without a number (a token's or a session's card, which only the vault opens)
 * there is no card group, as for a standalone refund's (refund-response.ts): the spec's card
 * always has its number, and the token names the card.
 */
function requestedCard(explicit: ExplicitCardFields): JsonObject | undefined {
  if (explicit.number === undefined) {
    return undefined;
  }
  const { brand, scheme, fundingMethod } = lookupBin(explicit.number.slice(0, 8));
  const expiry = explicit.expiry ? { month: String(Number(explicit.expiry.month)), year: explicit.expiry.year } : undefined;
  return definedGroups({ brand, expiry, fundingMethod, number: maskPan(explicit.number), scheme });
}
