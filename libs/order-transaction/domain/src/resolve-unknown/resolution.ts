import { GatewayError, JsonObject } from '@gateway/contracts';
import { isCardReservationRow, isReservationRow, LedgerWrite, LockedOrder, TransactionRow } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { completeResponse } from '../ledger-response/complete-response';
import { objectOrEmpty, OrderSnapshot } from '../ledger-response/order-snapshot';
import { recordEntry } from '../order-state/record-entry';
import { entryOfRow, orderRowWrite } from '../record-operation/ledger-write';
import { approvedAmountOf, isApproval, LearnedOutcome, learnedResponse, partiallyApprovedResponse, resultOf } from './learned-outcome';

/** The transaction an outcome was learned about. */
export interface UnknownTransactionKey {
  merchantId: string;
  orderId: string;
  transactionId: string;
}

/** The resolution decided on one view of the order: the write, or the answer when the ledger already holds that outcome. */
export type ResolutionDecision = { write: LedgerWrite; body: JsonObject; transaction: TransactionRow } | { replay: JsonObject };

/**
 * What learning `learned` about the transaction does to the order as read (without a lock, or
 * locked): the record that replaces the UNKNOWN outcome, decided like a reservation's completion
 * (the transaction updated in place, the order's totals and status derived again from all its
 * transactions under the ledger's rules, its stored response replaced) but on the row as it is:
 * its own fields and fencing token stay, since no request is being served. Pure: it may be
 * decided twice (RecordOperation.recordDecided).
 *
 * - UNKNOWN: resolved. An approval moves the money as the operation's approval would have
 *   (AUTHORIZATION authorised, PAYMENT captured, REFUND refunded...); a decline frees the amount
 *   the UNKNOWN outcome held against the order's limits. A partial approval (an AUTHORIZE or PAY
 *   whose request accepted partial amounts) is recorded as its completion records one: the
 *   transaction and the order at the approved amount, `requestedAmount` what was asked, no tax.
 * - the learned outcome already recorded (a second resolution, two racing): the stored
 *   response, nothing written.
 * - a card operation's reservation PENDING for ABANDONED_RESERVATION_MS: resolved as if UNKNOWN.
 * - anything else (another outcome, a recent PENDING, a browser payment's transaction): refused.
 */
export function decideResolution(
  order: LockedOrder,
  key: UnknownTransactionKey,
  learned: LearnedOutcome,
  at: Date,
  abandonedAfterMs: number = ABANDONED_RESERVATION_MS,
): ResolutionDecision {
  const { order: row, contents } = order;
  const existing = contents.transactions.find((t) => t.transactionId === key.transactionId);
  if (!existing) {
    throw noSuchTransaction(key);
  }
  const stored = contents.stored;
  if (!stored) {
    // Every recorded transaction has the response of its creating operation, which this view was read for.
    throw new Error(`no stored response of ${existing.apiOperation} ${key.orderId}/${key.transactionId}`);
  }
  const avsRejected = rejectedByAvsRule(existing, stored.body, learned);
  const gatewayCode = avsRejected ? 'DECLINED_AVS' : learned.gatewayCode;
  const result = avsRejected ? 'FAILURE' : resultOf(learned.gatewayCode);
  if (existing.result === result && existing.gatewayCode === gatewayCode && sameApprovedAmount(existing, learned)) {
    return { replay: stored.body };
  }
  assertResolvable(existing, key, at, abandonedAfterMs);
  // What was asked for: the transaction's amount until an outcome is known (PayByCard records the
  // requested amount on its reservation and on an UNKNOWN outcome).
  const requested = Money.of(existing.amount, existing.currency);
  const partial = learned.gatewayCode === 'PARTIALLY_APPROVED' ? partialApproval(existing, stored.body, key, learned, requested) : null;
  const amount = partial ?? requested;

  const transaction: TransactionRow = {
    ...existing,
    amount: partial ? partial.toFixed() : existing.amount,
    result,
    gatewayCode,
    taxAmount: partial ? null : existing.taxAmount,
    updatedAt: at,
  };
  const replacing = contents.transactions.indexOf(existing);
  // The Excessive Refund privilege is the merchant profile's, which no request brought; it
  // cannot matter: an UNKNOWN outcome already counts wherever a limit counts what may have moved
  // (refund and capture exposure, open totals), so learning it adds no exposure. The rules still
  // run, so a resolution that broke one would be refused rather than recorded.
  const { state } = recordEntry(row.currency, contents.transactions.map(entryOfRow), entryOfRow(transaction), {
    replacing,
    excessiveRefundAllowed: false,
  });
  const snapshot: OrderSnapshot = {
    ...state,
    id: row.orderId,
    currency: row.currency,
    // A partial approval's completion sets the order's amount to what was approved (PayByCard).
    amount: partial ?? Money.of(row.amount, row.currency),
    createdAt: row.createdAt,
    updatedAt: at,
  };
  const recorded = {
    id: existing.transactionId,
    type: existing.type,
    amount,
    result,
    gatewayCode,
    targetTransactionId: existing.targetTransactionId,
  };
  // The gateway declined what the issuer approved: no approval code to quote (transaction-filtering.rule.ts).
  const { authorizationCode: _declined, ...withoutApproval } = learned;
  const learnedBody = learnedResponse(stored.body, avsRejected ? withoutApproval : learned);
  const body = completeResponse(partial ? partiallyApprovedResponse(learnedBody, requested) : learnedBody, snapshot, recorded, at);
  const sequence = row.operationCount + 1;
  const write: LedgerWrite = {
    order: orderRowWrite(snapshot, {
      merchantId: row.merchantId,
      details: row.details,
      notificationUrl: row.notificationUrl,
      fence: BigInt(row.lastFencingToken),
      sequence,
      at,
    }),
    transaction: {
      transactionId: existing.transactionId,
      apiOperation: existing.apiOperation,
      type: existing.type,
      amount: transaction.amount,
      currency: existing.currency,
      result,
      gatewayCode,
      targetTransactionId: existing.targetTransactionId,
      fundingType: existing.fundingType,
      taxAmount: transaction.taxAmount,
    },
    // Under the original request's hash: a replay of that request answers what was learned.
    response: { apiOperation: existing.apiOperation, requestHash: stored.requestHash, body, replaces: true },
    sequence,
    at,
  };
  return { write, body, transaction };
}

/**
 * A VERIFY recorded UNKNOWN under an AVS REJECT rule for the AVS result it got (its stored
 * `risk.response.gatewayCode` REJECTED: the rule could not act on an unknown outcome) and now
 * learned approved: the rule acts as it would have on the approval when it was recorded
 * (transaction-filtering.rule.ts, docs/decisions/avs-rules-override-per-code.md): DECLINED_AVS,
 * result FAILURE. A REVIEW or NO_ACTION decision leaves the approval as it is.
 */
function rejectedByAvsRule(existing: TransactionRow, stored: JsonObject, learned: LearnedOutcome): boolean {
  if (existing.type !== 'VERIFICATION' || !isApproval(learned.gatewayCode)) {
    return false;
  }
  return objectOrEmpty(objectOrEmpty(stored.risk).response).gatewayCode === 'REJECTED';
}

/**
 * How long a card operation's reservation must have been PENDING before an outcome an operator
 * learned replaces it (`transactions resolve`, a one-shot that reads no service settings). The
 * gateway's own inquiries use ABANDONED_RESERVATION_AFTER_MS instead, checked at start against
 * the settings that bound an operation (order-transaction's config). No operation runs that long: the edge waits 10 s for it, a service's
 * calls are bounded (the vault's 5 s, a reversal's 3 s, the completion's retries while the
 * database is away: DATABASE_UNAVAILABLE_WINDOW_MS, 25 s) and a stopping process exits within its
 * grace (SHUTDOWN_GRACE_MS: 50 s as deployed, 420 s at most). One still PENDING after this was
 * left by a process that died between the acquirer's answer and its completion, or whose
 * database stayed away longer than the completion's retries, or by a reservation whose commit
 * was reported lost and which was never sent: nothing will complete it any more.
 */
export const ABANDONED_RESERVATION_MS = 10 * 60_000;

/**
 * How old a card reservation's last write must be before this process treats it as abandoned:
 * ABANDONED_RESERVATION_AFTER_MS where requests are served; ABANDONED_RESERVATION_MS without it.
 */
export const ABANDONED_RESERVATION_AFTER = Symbol('ABANDONED_RESERVATION_AFTER');

/** A card operation's reservation (RunReservedOperation, RefundOrder): PENDING until its acquirer call is recorded. */
export function isReservation(existing: TransactionRow): boolean {
  return isReservationRow(existing);
}

/**
 * A card operation's reservation nothing will complete any more: last written `afterMs` or more
 * before `at`. A browser payment's PENDING is its provider's (PROVIDER_* funding), never one.
 * The sweep's query is the same rule in SQL (CARD_RESERVATION_SQL, UnknownInquiries.sweepAbandoned).
 */
export function isAbandonedReservation(existing: TransactionRow, at: Date, afterMs: number): boolean {
  return isCardReservationRow(existing) && at.getTime() - existing.updatedAt.getTime() >= afterMs;
}

/**
 * Only a card transaction recorded UNKNOWN, or a card operation's reservation abandoned PENDING
 * (isAbandonedReservation): the acquirer's answer never reached the ledger either way. A PENDING
 * one reserved more recently may still be completed by its operation (its completion would then
 * find it taken); a refund request waits for approval, not for an acquirer; a browser payment's
 * outcome is browser-payment's, which follows the provider (PROVIDER_* funding).
 */
function assertResolvable(existing: TransactionRow, key: UnknownTransactionKey, at: Date, abandonedAfterMs: number): void {
  if (existing.fundingType !== 'CARD') {
    throw GatewayError.invalidRequest(
      `Transaction '${key.transactionId}' on order '${key.orderId}' is funded by ${existing.fundingType ?? 'no card'}: its outcome is reconciled by the service that made it, not here.`,
    );
  }
  if (existing.result !== 'UNKNOWN' && !isAbandonedReservation(existing, at, abandonedAfterMs)) {
    const reservation = isReservation(existing)
      ? ` A reservation is resolved once it has been PENDING for ${waitText(abandonedAfterMs)}: until then its operation may still complete it.`
      : '';
    throw GatewayError.invalidRequest(
      `Transaction '${key.transactionId}' on order '${key.orderId}' is recorded ${existing.result} (${existing.gatewayCode}), not UNKNOWN: only an unknown outcome is replaced by a learned one.${reservation}`,
    );
  }
}

/**
 * A partial approval is recorded only where its completion could have recorded one: an AUTHORIZE
 * or PAY whose request accepted partial amounts (`order.acceptPartialAmount` true, which the
 * operation passed to the acquirer: PayByCard; the stored response of the transaction's own
 * request echoes it). Without it an issuer approves all of it or nothing (the test acquirer
 * answers INSUFFICIENT_FUNDS), so a partial approval learned of it is refused for a person to
 * look at. Answers the approved amount (approvedAmountOf).
 */
function partialApproval(existing: TransactionRow, stored: JsonObject, key: UnknownTransactionKey, learned: LearnedOutcome, requested: Money): Money {
  if (existing.apiOperation !== 'AUTHORIZE' && existing.apiOperation !== 'PAY') {
    throw GatewayError.invalidRequest(
      `Transaction '${key.transactionId}' on order '${key.orderId}' is a ${existing.apiOperation}: only an AUTHORIZE or a PAY is approved in part.`,
    );
  }
  if (objectOrEmpty(stored.order).acceptPartialAmount !== true) {
    throw GatewayError.invalidRequest(
      `Transaction '${key.transactionId}' on order '${key.orderId}' was requested without order.acceptPartialAmount: it is approved in full or not at all, never in part.`,
    );
  }
  return approvedAmountOf(learned, requested);
}

/** A partial approval already recorded is the same outcome only at the same amount. */
function sameApprovedAmount(existing: TransactionRow, learned: LearnedOutcome): boolean {
  if (learned.gatewayCode !== 'PARTIALLY_APPROVED') {
    return true;
  }
  if (learned.approvedCurrency !== undefined && learned.approvedCurrency !== existing.currency) {
    return false;
  }
  try {
    return Money.of(learned.approvedAmount ?? '', existing.currency).equals(Money.of(existing.amount, existing.currency));
  } catch {
    return false;
  }
}

function waitText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} seconds`;
}

export function noSuchTransaction(key: UnknownTransactionKey): GatewayError {
  return new GatewayError('NOT_FOUND', {
    explanation: `No transaction '${key.transactionId}' was found on order '${key.orderId}' of merchant '${key.merchantId}'.`,
  });
}
