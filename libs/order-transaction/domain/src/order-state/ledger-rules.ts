import { GatewayError, TransactionResult, TransactionType } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { deriveTotals, isStandaloneRefund, LedgerEntry, OrderTotals, sumOf } from './derive-order-state';

/** Refunds whose money has moved or may still move count against the refundable amount. */
const REFUND_EXPOSED: TransactionResult[] = ['SUCCESS', 'PENDING', 'UNKNOWN'];
/** A refund request waiting for approval holds its amount, so approving it can never break the limit. */
const REQUEST_OUTSTANDING: TransactionResult[] = ['SUCCESS', 'PENDING'];
const TOTALS: (keyof OrderTotals)[] = ['totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount'];

/**
 * The money rules the ledger enforces itself, inside the database transaction on the locked
 * order row, so they hold whatever the caller checked before and even when two writers race
 * (ARCHITECTURE 4.9). A write may not leave a total negative, nor take the order's refunds
 * (further) beyond what was captured unless the merchant has the Excessive Refund privilege.
 * Writes that do not add refund exposure pass even on an order already beyond the limit (a
 * privilege since withdrawn), so its other transactions can still be recorded. Likewise captures
 * (with those pending or unknown) may not (further) exceed what the order's authorisations hold:
 * the capture limit of docs/decisions/card-payment-rules.md.
 */
export function assertLedgerRules(
  currency: string,
  before: readonly LedgerEntry[],
  after: readonly LedgerEntry[],
  totals: OrderTotals,
  incoming: LedgerEntry,
  excessiveRefundAllowed: boolean,
): void {
  for (const name of TOTALS) {
    if (totals[name].isNegative()) {
      throw GatewayError.invalidRequest(
        `The transaction cannot be recorded: it would leave the order's ${name} negative.`,
      );
    }
  }
  assertSingleVoid(after, incoming);
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
  // A standalone refund has nothing captured to be limited by: it is its own order.
  if (excessiveRefundAllowed || isStandaloneRefund(after)) {
    return;
  }
  const availableBefore = refundable(currency, before);
  const availableAfter = refundable(currency, after);
  if (availableAfter.isNegative() && availableAfter.lessThan(availableBefore)) {
    throw refundLimitError(Money.of(incoming.amount, currency), availableBefore);
  }
}

/** A refund of `amount` refused by the refund limit, `available` (negative: none) being left. */
export function refundLimitError(amount: Money, available: Money): GatewayError {
  const shown = available.isNegative() ? Money.zero(available.currency) : available;
  return GatewayError.invalidField(
    'transaction.amount',
    'INVALID',
    `Value '${amount.toFixed()}' is invalid. The amount available for refund on this order is ${shown.toFixed()} ${shown.currency}.`,
  );
}

/**
 * Captured minus the refunds exposed (and the refund requests outstanding); negative when they
 * exceed the captured amount.
 */
export function refundable(currency: string, entries: readonly LedgerEntry[]): Money {
  const exposed = sumOf(currency, entries, ['REFUND'], REFUND_EXPOSED)
    .plus(sumOf(currency, entries, ['REFUND_REQUEST'], REQUEST_OUTSTANDING))
    .minus(sumOf(currency, entries, ['VOID_REFUND']));
  return deriveTotals(currency, entries).totalCapturedAmount.minus(exposed);
}

const VOID_TYPES: TransactionType[] = ['VOID_AUTHORIZATION', 'VOID_CAPTURE', 'VOID_PAYMENT', 'VOID_REFUND'];
const VOID_EXPOSED: TransactionResult[] = ['SUCCESS', 'PENDING', 'UNKNOWN'];

/**
 * A transaction is voided at most once: a void that succeeded, or may still (PENDING while its
 * acquirer call runs, UNKNOWN), stands in the way of another void of the same target. Pending
 * voids move no total, so only this rule stops two racing voids from both reaching the acquirer.
 */
function assertSingleVoid(after: readonly LedgerEntry[], incoming: LedgerEntry): void {
  if (!VOID_TYPES.includes(incoming.type) || !VOID_EXPOSED.includes(incoming.result) || !incoming.targetTransactionId) {
    return;
  }
  const voids = after.filter(
    (e) => VOID_TYPES.includes(e.type) && VOID_EXPOSED.includes(e.result) && e.targetTransactionId === incoming.targetTransactionId,
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

/** Captures that moved or may move money count against the authorised amount. */
const CAPTURE_EXPOSED: TransactionResult[] = ['SUCCESS', 'PENDING', 'UNKNOWN'];

/**
 * What the order's authorisations still hold for capture: authorised (AUTHORIZATION and
 * AUTHORIZATION_UPDATE, less voided authorisations) minus the captures exposed (less voided
 * captures). A PAYMENT authorises and captures itself, so it counts on neither side. Negative
 * when captures exceed the authorisations.
 */
export function capturable(currency: string, entries: readonly LedgerEntry[]): Money {
  const authorized = sumOf(currency, entries, ['AUTHORIZATION', 'AUTHORIZATION_UPDATE']).minus(
    sumOf(currency, entries, ['VOID_AUTHORIZATION']),
  );
  const captured = sumOf(currency, entries, ['CAPTURE'], CAPTURE_EXPOSED).minus(sumOf(currency, entries, ['VOID_CAPTURE']));
  return authorized.minus(captured);
}

/**
 * What one authorisation still holds for capture: its amount (when it succeeded and is not
 * voided) minus the captures naming it that moved or may move money, less those voided. The
 * order-wide `capturable` cannot see that two racing captures of one authorisation exceed it
 * while the order's other authorisations keep the total within bounds; this can.
 */
export function capturableOf(currency: string, entries: readonly LedgerEntry[], authorizationId: string): Money {
  const voided = (id: string | undefined, voidType: TransactionType) =>
    entries.some((e) => e.type === voidType && e.result === 'SUCCESS' && e.targetTransactionId === id);
  const authorized = entries
    .filter((e) => e.type === 'AUTHORIZATION' && e.result === 'SUCCESS' && e.id === authorizationId)
    .filter((e) => !voided(e.id, 'VOID_AUTHORIZATION'))
    .reduce((sum, e) => sum.plus(Money.of(e.amount, currency)), Money.zero(currency));
  const captured = entries
    .filter((e) => e.type === 'CAPTURE' && CAPTURE_EXPOSED.includes(e.result) && e.targetTransactionId === authorizationId)
    .filter((e) => !voided(e.id, 'VOID_CAPTURE'))
    .reduce((sum, e) => sum.plus(Money.of(e.amount, currency)), Money.zero(currency));
  return authorized.minus(captured);
}

/** A capture of `amount` refused by the capture limit, `available` (negative: none) being left. */
export function captureLimitError(amount: Money, available: Money): GatewayError {
  const shown = available.isNegative() ? Money.zero(available.currency) : available;
  return GatewayError.invalidField(
    'transaction.amount',
    'INVALID',
    `Value '${amount.toFixed()}' is invalid. The amount available for capture on this order is ${shown.toFixed()} ${shown.currency}.`,
  );
}
