import type { AcquirerCard } from '@gateway/acquirer';
import {
  AcquirerCallSource,
  cardAcquirerIdOf,
  GatewayError,
  isStandaloneRefundOrder,
  LedgerOrderView,
  LedgerTransactionView,
  MerchantContext,
  OperationSession,
  refundNeedsApproval,
  RefundRequest,
  RefundSourceOfFunds,
  TransactionType,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { describeTransaction, voidOf } from '../card-operation/order-transactions';
import { refundable, refundableOf, refundLimitError } from '../order-state/ledger-rules';
import { acquirerCardOf, requestCard, RequestCard } from './refund-card';
import { invalid, missing, moneyField, unsupported } from '../request-errors/request-errors';

/**
 * Where the refund's money comes from:
 *   APPROVAL  nowhere yet: the refund waits for approval (REFUND_REQUEST);
 *   ACQUIRER  the acquirer connector, for the original card transaction (linked) or to the
 *             card the request gives (standalone);
 *   VAULT     the token vault, which alone opens a stored card: a token's and/or the named
 *             payment session's sealed card (token-vault.acquirer.call.v1);
 *   PROVIDER  browser-payment, for an order a provider funded (browser-payment.refund.v1).
 */
export type RefundRoute =
  | { kind: 'APPROVAL' }
  | { kind: 'ACQUIRER'; card?: AcquirerCard }
  | { kind: 'VAULT'; source: AcquirerCallSource }
  | { kind: 'PROVIDER' };

export interface RefundPlan {
  /** Linked: a refund of a transaction of an existing order. Otherwise standalone: a new order. */
  linked: boolean;
  type: 'REFUND' | 'REFUND_REQUEST';
  amount: Money;
  /** The request's taxAmount, or for a full refund the total tax captured on the order. */
  taxAmount: Money | null;
  target: LedgerTransactionView | null;
  card?: RequestCard;
  route: RefundRoute;
  /**
   * A standalone refund's acquirer: the merchant's card acquirer (contracts, cardAcquirerIdOf),
   * where its card goes directly or through the vault, and where a REFUND_REQUEST's would once
   * approved. Named in its answer until the acquirer answers for itself. Absent on a linked
   * refund (its target's acquirer answers for it) and for a merchant with none configured.
   */
  acquirerId?: string;
}

/** What a refund returns funds of (a successful one): its target. */
export const FUNDS_TRANSFERS: readonly TransactionType[] = ['PAYMENT', 'CAPTURE'];

/**
 * What a refund request means on the order as begin saw it (spec refund rules 1, 2, 4, 5;
 * docs/decisions/refund-rules.md). Throws the 400 of a request that cannot be a refund of this
 * order. The ledger checks the refund limit itself when the refund is reserved, on the order as
 * it stands when that write lands.
 */
export function planRefund(
  request: RefundRequest,
  order: LedgerOrderView | null,
  merchant: MerchantContext,
  session?: OperationSession,
): RefundPlan {
  const amount = refundAmount(request);
  const approval = needsApproval(request, merchant);
  const retried = order !== null && request.sourceOfFunds !== undefined && declinedStandaloneRefundsOnly(order);
  if (order && !retried) {
    return planLinked(request, order, merchant, amount, approval, session);
  }
  if (order) {
    assertOrderCurrency(order, amount);
  }
  const plan = planStandalone(request, amount, approval, session, order !== null);
  const acquirerId = cardAcquirerIdOf(merchant);
  return acquirerId === undefined ? plan : { ...plan, acquirerId };
}

function planLinked(
  request: RefundRequest,
  order: LedgerOrderView,
  merchant: MerchantContext,
  amount: Money,
  approval: boolean,
  session: OperationSession | undefined,
): RefundPlan {
  if (request.sourceOfFunds !== undefined && !onlySessionCardType(request.sourceOfFunds, session)) {
    throw unsupported(
      'sourceOfFunds',
      `Order '${order.id}' exists: a refund on it returns funds to the source of the refunded transaction. A standalone refund to another card needs a new order id.`,
    );
  }
  assertOrderCurrency(order, amount);
  const target = refundTargetOf(order, amount, request.transaction.targetTransactionId, merchant.settings.privileges.excessiveRefund);
  const taxAmount = requestTax(request, amount.currency) ?? defaultTaxAmount(order, amount);
  const route: RefundRoute = approval
    ? { kind: 'APPROVAL' }
    : target.fundingType?.startsWith('PROVIDER_')
      ? { kind: 'PROVIDER' }
      : { kind: 'ACQUIRER' };
  return { linked: true, type: approval ? 'REFUND_REQUEST' : 'REFUND', amount, taxAmount, target, route };
}

/**
 * A `sourceOfFunds` that names no source, in a refund naming a session with a card: the CARD type
 * that session's card details gave it fills the refund like any session value (card details never
 * do), and a refund of the payment that card made (docs/sessions.md) must not be refused for it.
 * A token or card fields are a source, whoever gave them: a linked refund still refuses those.
 */
function onlySessionCardType(sourceOfFunds: RefundSourceOfFunds, session: OperationSession | undefined): boolean {
  return session?.sealedCard !== undefined && sourceOfFunds.token === undefined && sourceOfFunds.provided === undefined;
}

/**
 * The payment or capture a linked refund of `amount` returns funds of: the one named
 * (transaction.targetTransactionId), or the one the ledger identifies (spec refund rule 4).
 */
export function refundTargetOf(order: LedgerOrderView, amount: Money, named: string | undefined, excessiveRefund: boolean): LedgerTransactionView {
  return named ? namedTarget(order, named) : identifiedTarget(order, amount, excessiveRefund);
}

/** A refund on an existing order is in the order's currency. */
function assertOrderCurrency(order: LedgerOrderView, amount: Money): void {
  if (amount.currency !== order.currency) {
    throw invalid('transaction.currency', amount.currency, `The order's currency is ${order.currency}.`);
  }
}

/** `retried`: the order exists, opened by standalone refunds that were all declined (declinedStandaloneRefundsOnly). */
function planStandalone(request: RefundRequest, amount: Money, approval: boolean, session: OperationSession | undefined, retried: boolean): RefundPlan {
  const targetTransactionId = request.transaction.targetTransactionId;
  if (targetTransactionId !== undefined) {
    throw invalid(
      'transaction.targetTransactionId',
      targetTransactionId,
      retried
        ? 'The order holds only declined standalone refunds: there is nothing on it to refund. A standalone refund names no target.'
        : 'The order does not exist: a refund of an earlier transaction uses that transaction\'s order id.',
    );
  }
  const sourceOfFunds = request.sourceOfFunds;
  if (!sourceOfFunds) {
    throw missing(
      'sourceOfFunds',
      'The order does not exist: a standalone refund needs the card or token to refund to. A refund of an earlier payment uses that payment\'s order id.',
    );
  }
  const card = requestCard(sourceOfFunds.provided?.card);
  const base = { linked: false, amount, taxAmount: requestTax(request, amount.currency), target: null, ...(card ? { card } : {}) };
  if (sourceOfFunds.token !== undefined) {
    const source = { token: sourceOfFunds.token, ...sealedCardOf(session) };
    return { ...base, type: approval ? 'REFUND_REQUEST' : 'REFUND', route: approval ? { kind: 'APPROVAL' } : { kind: 'VAULT', source } };
  }
  // A session's card, completed by the request's own card fields (explicit > session): only the
  // vault opens it. A complete card in the request wins whole and goes to the acquirer directly.
  const sealed = sealedCardOf(session);
  if (sealed.sealed && !(card?.number !== undefined && card.expiry !== undefined) && !approval) {
    return { ...base, type: 'REFUND', route: { kind: 'VAULT', source: sealed } };
  }
  const acquirerCard = acquirerCardOf(card);
  if (approval) {
    // The ledger never holds a card number, so a card given only in the request cannot wait.
    throw unsupported(
      'sourceOfFunds.provided.card',
      'Refunds of this merchant wait for approval, and a card given in the request cannot be held until then: store it as a token and refund to sourceOfFunds.token.',
    );
  }
  return { ...base, type: 'REFUND', route: { kind: 'ACQUIRER', card: acquirerCard } };
}

/**
 * An order opened by a standalone refund on which nothing moved money: every transaction on it is
 * a refund (or refund request) that failed. A refund giving sourceOfFunds there is the standalone
 * refund retried with a new transaction id (spec: a failed operation needs a new id for each
 * retry), not a refund of that order. Once one succeeded or may have, rule 2's new order id applies.
 */
function declinedStandaloneRefundsOnly(order: LedgerOrderView): boolean {
  return (
    isStandaloneRefundOrder(order.transactions) &&
    order.transactions.every((t) => (t.type === 'REFUND' || t.type === 'REFUND_REQUEST') && t.result === 'FAILURE')
  );
}

/** The named session's sealed card, as the vault's acquirer call takes it (card-custody.messages.ts). */
function sealedCardOf(session: OperationSession | undefined): Pick<AcquirerCallSource, 'sealed'> {
  return session?.sealedCard === undefined ? {} : { sealed: { value: session.sealedCard, bindingId: session.id } };
}

/**
 * A REFUND_REQUEST instead of a refund: the merchant's refunds need approval
 * (privileges.refundRequiresApproval), or the merchant asks for it (transaction.priorApproval).
 */
function needsApproval(request: RefundRequest, merchant: MerchantContext): boolean {
  return refundNeedsApproval(merchant, request.transaction.priorApproval);
}

function refundAmount(request: RefundRequest): Money {
  const { amount, currency } = request.transaction;
  return moneyField('transaction.amount', amount, 'transaction.currency', currency);
}

function requestTax(request: RefundRequest, currency: string): Money | null {
  const taxAmount = request.transaction.taxAmount;
  if (taxAmount === undefined) {
    return null;
  }
  return moneyField('transaction.taxAmount', taxAmount, 'transaction.currency', currency);
}

/** transaction.targetTransactionId: a successful PAYMENT or CAPTURE of this order. */
function namedTarget(order: LedgerOrderView, id: string): LedgerTransactionView {
  const target = order.transactions.find((t) => t.id === id);
  if (!target) {
    throw invalid('transaction.targetTransactionId', id, `Order '${order.id}' has no transaction with this id.`);
  }
  if (!isFundsTransfer(target)) {
    throw invalid(
      'transaction.targetTransactionId',
      id,
      `Transaction '${id}' is ${describeTransaction(target)}: only a successful PAYMENT or CAPTURE can be refunded.`,
    );
  }
  const voided = voidOf(order, target);
  if (voided) {
    const state = voided.result === 'SUCCESS' ? 'voided' : `being voided (its void is ${voided.result})`;
    throw invalid('transaction.targetTransactionId', id, `Transaction '${id}' is ${state} by transaction '${voided.id}': nothing of it is left to refund.`);
  }
  return target;
}

/**
 * Spec refund rule 4: without targetTransactionId, the one successful PAYMENT or CAPTURE with
 * something left to refund (with the Excessive Refund privilege, the one not voided: it may be
 * refunded beyond its amount). Several: a 400 naming them. None: a 400 saying why; for an order
 * whose captures are all refunded that is the refund limit's own answer.
 */
function identifiedTarget(order: LedgerOrderView, amount: Money, excessiveRefund: boolean): LedgerTransactionView {
  const transfers = order.transactions.filter((t) => isFundsTransfer(t) && !isVoided(order, t));
  const candidates = excessiveRefund ? transfers : transfers.filter((t) => unrefunded(order, t).isPositive());
  if (candidates.length > 1) {
    throw missing(
      'transaction.targetTransactionId',
      `Order '${order.id}' has ${candidates.length} transactions that can be refunded (${candidates.map((t) => t.id).join(', ')}): name the one to refund.`,
    );
  }
  if (candidates.length === 0 && transfers.length > 0) {
    throw refundLimitError(amount, refundable(order.currency, order.transactions));
  }
  if (candidates.length === 0) {
    // None standing, yet some were paid or captured: every one of them is voided or being voided.
    const allVoided = order.transactions.some((t) => isFundsTransfer(t));
    throw GatewayError.invalidRequest(
      allVoided
        ? `Order '${order.id}' has nothing to refund: its payments and captures are voided or being voided.`
        : `Order '${order.id}' has no captured or paid transaction to refund.`,
    );
  }
  return candidates[0];
}

/** Voided, or being voided (its void PENDING or UNKNOWN): either way nothing of it is left to refund. */
function isVoided(order: LedgerOrderView, transfer: LedgerTransactionView): boolean {
  return voidOf(order, transfer) !== undefined;
}

function isFundsTransfer(t: LedgerTransactionView): boolean {
  return FUNDS_TRANSFERS.includes(t.type) && t.result === 'SUCCESS';
}

/**
 * What is left to refund of a funds transfer (the ledger's own per-target refund limit,
 * refundableOf): nothing once it is voided or being voided; otherwise its amount less the refunds
 * against it that moved or may move money (and refund requests waiting for approval), a voided
 * refund not counting.
 */
export function unrefunded(order: LedgerOrderView, transfer: LedgerTransactionView): Money {
  return refundableOf(order.currency, order.transactions, transfer.id);
}

/**
 * Spec refund rule 5: a full refund (the whole captured amount) defaults its taxAmount to the
 * total tax captured on the order: the tax of its successful, not voided, payments and captures.
 * A capture that named no tax of its own but captured its whole authorisation captured that
 * authorisation's tax (refund-rules.md, amendment 2026-11-26). Null when none of them has a tax.
 */
export function defaultTaxAmount(order: LedgerOrderView, amount: Money): Money | null {
  if (!amount.equals(Money.of(order.totalCapturedAmount, order.currency))) {
    return null;
  }
  const taxes = order.transactions
    .filter((t) => isFundsTransfer(t) && !isVoided(order, t))
    .map((t) => taxCaptured(order, t))
    .filter((tax): tax is Money => tax !== null);
  if (taxes.length === 0) {
    return null;
  }
  return taxes.reduce((sum, tax) => sum.plus(tax), Money.zero(order.currency));
}

/** A payment's or capture's own tax; else, for a capture of a whole authorisation, the authorisation's. */
function taxCaptured(order: LedgerOrderView, transfer: LedgerTransactionView): Money | null {
  if (transfer.taxAmount !== undefined) {
    return Money.of(transfer.taxAmount, order.currency);
  }
  const authorization = transfer.type === 'CAPTURE' ? order.transactions.find((t) => t.id === transfer.targetTransactionId) : undefined;
  const wholeAuthorization =
    authorization?.type === 'AUTHORIZATION' && Money.of(authorization.amount, order.currency).equals(Money.of(transfer.amount, order.currency));
  return wholeAuthorization && authorization.taxAmount !== undefined ? Money.of(authorization.taxAmount, order.currency) : null;
}
