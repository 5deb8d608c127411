import { GatewayError, isStandaloneRefundOrder, TransactionResult, TransactionType, VOID_TYPE_OF } from '@gateway/contracts';
import { MAX_AMOUNT, Money } from '@gateway/money';
import { amountsOf, deriveTotals, LedgerEntry, OrderTotals, sumOf } from './derive-order-state';

/**
 * Results after which a transaction has moved, or may still move, money: refunds and captures
 * with them count against their limits, voids with them stand in the way of another void.
 */
export const EXPOSED: readonly TransactionResult[] = ['SUCCESS', 'PENDING', 'UNKNOWN'];
/** A refund request waiting for approval holds its amount, so approving it can never break the limit. */
const REQUEST_OUTSTANDING: TransactionResult[] = ['SUCCESS', 'PENDING'];
const TOTALS: (keyof OrderTotals)[] = ['totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount'];
/** Not known to have failed nor to have succeeded: the money may still move. */
const OPEN: TransactionResult[] = ['PENDING', 'UNKNOWN'];
/** The void type of each voidable type (contracts), as the rules look it up for any transaction. */
const VOID_OF: Partial<Record<TransactionType, TransactionType>> = VOID_TYPE_OF;
const VOID_TYPES: readonly TransactionType[] = Object.values(VOID_TYPE_OF);
/** What brings money into an order: none of it on an order a standalone refund opened. */
const FUNDS_IN: TransactionType[] = ['AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'PAYMENT', 'CAPTURE'];

/**
 * What is recorded against a transaction of each voidable type, and must be voided before it (the
 * chain rule of VOID, docs/decisions/card-payment-rules.md): an authorisation's captures, a
 * capture's or payment's refunds and refund requests. The VOID plan checks the same on begin's view.
 */
export const VOID_DEPENDENTS: Record<keyof typeof VOID_TYPE_OF, readonly TransactionType[]> = {
  AUTHORIZATION: ['CAPTURE'],
  CAPTURE: ['REFUND', 'REFUND_REQUEST'],
  PAYMENT: ['REFUND', 'REFUND_REQUEST'],
  REFUND: [],
};

/**
 * The money rules the ledger enforces itself, inside the database transaction on the locked
 * order row, so they hold whatever the caller checked before and even when two writers race
 * (ARCHITECTURE 4.9), in this order (the first broken one is answered):
 *   - the chain rule of VOID (a transaction is voided once; nothing is recorded against a
 *     transaction voided or being voided, nor a transaction voided while something recorded
 *     against it stands: docs/decisions/card-payment-rules.md);
 *   - an order a standalone refund opened takes no money in;
 *   - no total goes negative;
 *   - the capture limit, order-wide and per authorisation;
 *   - the refund limit, order-wide and per payment or capture, unless the merchant has the
 *     Excessive Refund privilege (an order a standalone refund opened has none: it is its own);
 *   - no total goes beyond the largest amount the API answers. After the limits: a refund or
 *     capture beyond what is left of an order near that amount is answered with what is left
 *     (on transaction.amount), not told to use another order, which it cannot.
 * A limit only refuses a write that takes the order (further) beyond it: writes that add no
 * exposure pass even on an order already beyond it (a privilege since withdrawn), so its other
 * transactions can still be recorded. A void counts from its reservation on, so its completion
 * can never break a limit once its money has moved: a pending void of a capture or payment
 * already takes its amount out of what can be refunded, a pending void of an authorisation out
 * of what can be captured.
 */
export function assertLedgerRules(
  currency: string,
  before: readonly LedgerEntry[],
  after: readonly LedgerEntry[],
  totals: OrderTotals,
  incoming: LedgerEntry,
  excessiveRefundAllowed: boolean,
): void {
  // What may be recorded against what first: those refusals name the transaction in the way.
  assertSingleVoid(after, incoming);
  assertChainStands(after, incoming);
  const standaloneRefund = isStandaloneRefundOrder(after);
  if (standaloneRefund && FUNDS_IN.includes(incoming.type) && EXPOSED.includes(incoming.result)) {
    throw GatewayError.invalidRequest(
      `The transaction cannot be recorded: the order was opened by a standalone refund and takes no ${incoming.type}. A payment needs an order of its own.`,
    );
  }
  assertTotalsNotNegative(currency, before, after, totals);
  assertCaptureLimits(currency, before, after, incoming);
  // A standalone refund has nothing captured to be limited by: it is its own order.
  if (!excessiveRefundAllowed && !standaloneRefund) {
    assertRefundLimits(currency, before, after, incoming);
  }
  assertTotalsAnswerable(currency, before, after);
}

/**
 * No total may go negative; nor, a void counting from its reservation, newly go negative as if
 * every open void had succeeded, so a void's completion never finds them broken.
 */
function assertTotalsNotNegative(currency: string, before: readonly LedgerEntry[], after: readonly LedgerEntry[], totals: OrderTotals): void {
  const voidedBefore = deriveTotals(currency, asIfOpenVoidsSucceeded(before));
  const voidedAfter = deriveTotals(currency, asIfOpenVoidsSucceeded(after));
  for (const name of TOTALS) {
    if (totals[name].isNegative() || (voidedAfter[name].isNegative() && voidedAfter[name].lessThan(voidedBefore[name]))) {
      throw GatewayError.invalidRequest(
        `The transaction cannot be recorded: it would leave the order's ${name} negative.`,
      );
    }
  }
}

/**
 * Captures (with those pending or unknown) may not (further) exceed what the order's
 * authorisations hold, nor what the one they name holds (docs/decisions/card-payment-rules.md).
 */
function assertCaptureLimits(currency: string, before: readonly LedgerEntry[], after: readonly LedgerEntry[], incoming: LedgerEntry): void {
  const capturableBefore = capturable(currency, before);
  const capturableAfter = capturable(currency, after);
  if (capturableAfter.isNegative() && capturableAfter.lessThan(capturableBefore)) {
    throw incoming.type === 'CAPTURE'
      ? captureLimitError(Money.of(incoming.amount, currency), capturableBefore)
      : GatewayError.invalidRequest(
          `The transaction cannot be recorded: the order's captures would exceed its authorized amount (${incoming.type}).`,
        );
  }
  if (incoming.type === 'CAPTURE' && incoming.targetTransactionId) {
    const leftBefore = capturableOf(currency, before, incoming.targetTransactionId);
    const leftAfter = capturableOf(currency, after, incoming.targetTransactionId);
    if (leftAfter.isNegative() && leftAfter.lessThan(leftBefore)) {
      throw captureLimitError(Money.of(incoming.amount, currency), leftBefore);
    }
  }
}

/**
 * The order's refunds (with those pending or unknown, and the refund requests outstanding) may
 * not (further) exceed what was captured. Nor may a refund exceed what its target payment or
 * capture moved less the refunds already against it, even when the order's other captures keep
 * the order's total within bounds (docs/decisions/refund-rules.md, amendment 2026-11-26): it goes
 * to the acquirer (or provider) against its target's reference, where a real acquirer refuses it,
 * and on an order funded from two sources it would return one source's money to the other.
 */
function assertRefundLimits(currency: string, before: readonly LedgerEntry[], after: readonly LedgerEntry[], incoming: LedgerEntry): void {
  const refund = incoming.type === 'REFUND' || incoming.type === 'REFUND_REQUEST';
  const availableBefore = refundable(currency, before);
  const availableAfter = refundable(currency, after);
  if (availableAfter.isNegative() && availableAfter.lessThan(availableBefore)) {
    throw refund
      ? refundLimitError(Money.of(incoming.amount, currency), availableBefore)
      : GatewayError.invalidRequest(
          `The transaction cannot be recorded: the order's refunds would exceed its captured amount (${incoming.type}).`,
        );
  }
  const targetId = incoming.targetTransactionId;
  if (refund && targetId) {
    const leftBefore = refundableOf(currency, before, targetId);
    const leftAfter = refundableOf(currency, after, targetId);
    if (leftAfter.isNegative() && leftAfter.lessThan(leftBefore)) {
      throw targetRefundLimitError(Money.of(incoming.amount, currency), leftBefore, targetId);
    }
  }
}

/** A refund of `amount` refused by the refund limit, `available` (negative: none) being left. */
export function refundLimitError(amount: Money, available: Money): GatewayError {
  return amountLimitError(amount, available, 'for refund on this order');
}

/** A refund of `amount` against `targetId` refused by what is left of that target, `available` (negative: none). */
function targetRefundLimitError(amount: Money, available: Money, targetId: string): GatewayError {
  return amountLimitError(amount, available, `for refund of transaction '${targetId}'`);
}

/** `amount` refused by a limit with `available` left (negative: none) `what` (e.g. "for capture on this order"). */
function amountLimitError(amount: Money, available: Money, what: string): GatewayError {
  const shown = available.isNegative() ? Money.zero(available.currency) : available;
  return GatewayError.invalidField(
    'transaction.amount',
    'INVALID',
    `Value '${amount.toFixed()}' is invalid. The amount available ${what} is ${shown.toFixed()} ${shown.currency}.`,
  );
}

/**
 * What is left to refund of one payment or capture: its amount (when it succeeded and is neither
 * voided nor being voided) less the refunds naming it that moved or may move money and the refund
 * requests outstanding, a refund whose void succeeded not counting. The order-wide `refundable`
 * cannot see a refund beyond its own target while the order's other captures cover it; this can.
 */
export function refundableOf(currency: string, entries: readonly LedgerEntry[], transferId: string): Money {
  const paid = amountsOf(
    currency,
    entries
      .filter((e) => (e.type === 'PAYMENT' || e.type === 'CAPTURE') && e.result === 'SUCCESS' && e.id === transferId)
      .filter((e) => !voidedBy(entries, e.id, ['VOID_PAYMENT', 'VOID_CAPTURE'], EXPOSED)),
  );
  const refunded = amountsOf(
    currency,
    entries
      .filter((e) => e.targetTransactionId === transferId && countsAsRefunded(e))
      .filter((e) => !voidedBy(entries, e.id, ['VOID_REFUND'], ['SUCCESS'])),
  );
  return paid.minus(refunded);
}

/** Whether transaction `id` has a void of `voidTypes` with one of `results` (under way, or done). */
function voidedBy(entries: readonly LedgerEntry[], id: string | undefined, voidTypes: readonly TransactionType[], results: readonly TransactionResult[]): boolean {
  return entries.some((e) => voidTypes.includes(e.type) && results.includes(e.result) && e.targetTransactionId === id);
}

/** A refund that moved or may move money, or a refund request holding its amount. */
function countsAsRefunded(e: LedgerEntry): boolean {
  return (e.type === 'REFUND' && EXPOSED.includes(e.result)) || (e.type === 'REFUND_REQUEST' && REQUEST_OUTSTANDING.includes(e.result));
}

/**
 * Captured (a capture or payment being voided already taken off) minus the refunds exposed (and
 * the refund requests outstanding; a refund being voided still counts); negative when they
 * exceed the captured amount.
 */
export function refundable(currency: string, entries: readonly LedgerEntry[]): Money {
  const exposed = sumOf(currency, entries, ['REFUND'], EXPOSED)
    .plus(sumOf(currency, entries, ['REFUND_REQUEST'], REQUEST_OUTSTANDING))
    .minus(sumOf(currency, entries, ['VOID_REFUND']));
  return deriveTotals(currency, asIfOpenVoidsSucceeded(entries)).totalCapturedAmount.minus(exposed);
}

/**
 * Every total stays within the largest amount the API answers (DecOut, MAX_AMOUNT; the amount
 * columns hold no more), counting what is pending or unknown as if it succeeded: otherwise a
 * reservation accepted now could find its completion refused after the money moved. Each
 * request amount is within it already; this bounds their sum on one order.
 */
function assertTotalsAnswerable(currency: string, before: readonly LedgerEntry[], after: readonly LedgerEntry[]): void {
  const worstBefore = deriveTotals(currency, asIfOpenSucceeded(before));
  const worstAfter = deriveTotals(currency, asIfOpenSucceeded(after));
  for (const name of TOTALS) {
    if (worstAfter[name].amount.greaterThan(MAX_AMOUNT) && worstAfter[name].greaterThan(worstBefore[name])) {
      throw GatewayError.invalidRequest(
        `The transaction cannot be recorded: the order's ${name} would exceed ${MAX_AMOUNT} ${currency}, the largest amount the gateway answers. Use another order.`,
      );
    }
  }
}

/** Money coming in or going out that may still move, counted as moved (voids, which only take back, aside). */
function asIfOpenSucceeded(entries: readonly LedgerEntry[]): LedgerEntry[] {
  return entries.map((e) => (!VOID_TYPES.includes(e.type) && OPEN.includes(e.result) ? { ...e, result: 'SUCCESS' } : e));
}

/** The entries with every open void counted as succeeded: what the order holds at worst. */
function asIfOpenVoidsSucceeded(entries: readonly LedgerEntry[]): LedgerEntry[] {
  return entries.map((e) => (VOID_TYPES.includes(e.type) && OPEN.includes(e.result) ? { ...e, result: 'SUCCESS' } : e));
}

/**
 * A transaction is voided at most once: a void that succeeded, or may still (PENDING while its
 * acquirer call runs, UNKNOWN), stands in the way of another void of the same target. Pending
 * voids move no total, so only this rule stops two racing voids from both reaching the acquirer.
 */
function assertSingleVoid(after: readonly LedgerEntry[], incoming: LedgerEntry): void {
  if (!VOID_TYPES.includes(incoming.type) || !EXPOSED.includes(incoming.result) || !incoming.targetTransactionId) {
    return;
  }
  const voids = after.filter(
    (e) => VOID_TYPES.includes(e.type) && EXPOSED.includes(e.result) && e.targetTransactionId === incoming.targetTransactionId,
  );
  if (voids.length > 1) {
    const other = voids.find((e) => e.id !== incoming.id);
    throw GatewayError.invalidField(
      'transaction.targetTransactionId',
      'INVALID',
      `Value '${incoming.targetTransactionId}' is invalid. Transaction '${incoming.targetTransactionId}' is already voided${other?.id ? ` by transaction '${other.id}'` : ''}.`,
    );
  }
}

/** VOID_DEPENDENTS as the chain rule looks it up for any target. */
const DEPENDENT_TYPES: Partial<Record<TransactionType, readonly TransactionType[]>> = VOID_DEPENDENTS;

/**
 * The chain rule, held by the ledger itself: a capture or refund may not be reserved against a
 * transaction that is voided or being voided, nor a void reserved while a capture or refund of
 * its target stands, which it does until its own void has succeeded. Either would send the
 * acquirer both, and the void's completion could then find its money rule broken after the
 * money moved. A dependent whose void is only under way still stands: that void may yet fail
 * (or be released), and the void of its target, already at the acquirer, could then not be
 * recorded. The operations check the same on begin's view; this catches two writers racing
 * past it (a lock lost to a timeout).
 */
function assertChainStands(after: readonly LedgerEntry[], incoming: LedgerEntry): void {
  if (!EXPOSED.includes(incoming.result) || !incoming.targetTransactionId) {
    return;
  }
  const targetId = incoming.targetTransactionId;
  const voidOf = (id: string | undefined, results: readonly TransactionResult[]) => {
    const entry = after.find((e) => e.id !== undefined && e.id === id);
    const voidType = entry && VOID_OF[entry.type];
    return voidType && after.find((e) => e.type === voidType && e.targetTransactionId === id && results.includes(e.result));
  };
  if (VOID_TYPES.includes(incoming.type)) {
    const target = after.find((e) => e.id === targetId);
    const dependents = (target && DEPENDENT_TYPES[target.type]) ?? [];
    const standing = after.find(
      (e) => dependents.includes(e.type) && e.targetTransactionId === targetId && EXPOSED.includes(e.result) && !voidOf(e.id, ['SUCCESS']),
    );
    if (standing) {
      const underWay = voidOf(standing.id, OPEN);
      throw GatewayError.invalidField(
        'transaction.targetTransactionId',
        'INVALID',
        `Value '${targetId}' is invalid. Transaction '${targetId}' is not the latest of its chain: ` +
          (underWay
            ? `${standing.type} '${standing.id}' is being voided (its void '${underWay.id}' is ${underWay.result}); void '${targetId}' once that void succeeded.`
            : `void ${standing.type} '${standing.id}' first.`),
      );
    }
    return;
  }
  const voided = voidOf(targetId, EXPOSED);
  if (voided) {
    const state = voided.result === 'SUCCESS' ? 'already voided' : `being voided (its void is ${voided.result})`;
    throw GatewayError.invalidField(
      'transaction.targetTransactionId',
      'INVALID',
      `Value '${targetId}' is invalid. Transaction '${targetId}' is ${state} by transaction '${voided.id}'.`,
    );
  }
}

/**
 * What the order's authorisations still hold for capture: authorised (AUTHORIZATION and
 * AUTHORIZATION_UPDATE, less voided authorisations) minus the captures exposed (less voided
 * captures). A PAYMENT authorises and captures itself, so it counts on neither side. Negative
 * when captures exceed the authorisations.
 */
export function capturable(currency: string, entries: readonly LedgerEntry[]): Money {
  // An authorisation being voided holds nothing more for capture: its void may release it any moment.
  const authorized = sumOf(currency, entries, ['AUTHORIZATION', 'AUTHORIZATION_UPDATE']).minus(
    sumOf(currency, entries, ['VOID_AUTHORIZATION'], EXPOSED),
  );
  const captured = sumOf(currency, entries, ['CAPTURE'], EXPOSED).minus(sumOf(currency, entries, ['VOID_CAPTURE']));
  return authorized.minus(captured);
}

/**
 * What one authorisation still holds for capture: its amount (when it succeeded and is not
 * voided) minus the captures naming it that moved or may move money, less those voided. The
 * order-wide `capturable` cannot see that two racing captures of one authorisation exceed it
 * while the order's other authorisations keep the total within bounds; this can.
 */
export function capturableOf(currency: string, entries: readonly LedgerEntry[], authorizationId: string): Money {
  // Conservative both ways: an authorisation stops holding anything once its void is under
  // way; a capture stops counting only once its void succeeded.
  const authorized = amountsOf(
    currency,
    entries
      .filter((e) => e.type === 'AUTHORIZATION' && e.result === 'SUCCESS' && e.id === authorizationId)
      .filter((e) => !voidedBy(entries, e.id, ['VOID_AUTHORIZATION'], EXPOSED)),
  );
  const captured = amountsOf(
    currency,
    entries
      .filter((e) => e.type === 'CAPTURE' && EXPOSED.includes(e.result) && e.targetTransactionId === authorizationId)
      .filter((e) => !voidedBy(entries, e.id, ['VOID_CAPTURE'], ['SUCCESS'])),
  );
  return authorized.minus(captured);
}

/** A capture of `amount` refused by the capture limit, `available` (negative: none) being left. */
export function captureLimitError(amount: Money, available: Money): GatewayError {
  return amountLimitError(amount, available, 'for capture on this order');
}
