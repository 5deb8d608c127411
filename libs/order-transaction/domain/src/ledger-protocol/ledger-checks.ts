import { GatewayError, JsonObject, RequestEnvelope } from '@gateway/contracts';
import { RECORDED_WITHOUT_REQUEST } from '@gateway/order-transaction/data-access';
import type { OrderRow, StoredResponse, TransactionRow } from '@gateway/order-transaction/data-access';
import { Money, MoneyError } from '@gateway/money';
import { MalformedMessageError } from '@gateway/platform';
import { objectOrEmpty } from '../ledger-response/order-snapshot';

/**
 * Every ledger message comes from an operation running under the order's lock, so it carries
 * the lock's fencing token; one without is a fault between our processes (SERVER_FAILED).
 */
export function requireFencingToken(envelope: RequestEnvelope): bigint {
  if (!envelope.fencingToken) {
    throw new MalformedMessageError('ledger message without a fencing token');
  }
  return BigInt(envelope.fencingToken);
}

/**
 * A token older than the newest the order has seen means the caller's lock lapsed and another
 * operation has had the order since: its view may be stale, so nothing it says is written.
 * `beforeAnyAcquirer`: the check is one made before the operation presents a card to anyone
 * (begin, a reservation): the refusal says so, and the edge gives a session's security code the
 * operation took back for the merchant's retry (security-code-used-once.md, amendment 2026-11-27).
 */
export function assertFenceCurrent(token: bigint, order: OrderRow, beforeAnyAcquirer = false): void {
  if (token < BigInt(order.lastFencingToken)) {
    throw new GatewayError('ORDER_LOCK_LOST', {
      explanation: 'Another operation took the order while this one was in progress. Please retry the request.',
      beforeAnyAcquirer,
    });
  }
}

/**
 * What a request asks for, by which its retry of a transaction recorded from the acquirer's
 * records (RECORDED_WITHOUT_REQUEST) is recognised: every field given must be the recorded one.
 * PAY and AUTHORIZE give `order.amount` and currency; CAPTURE and REFUND `transaction.amount`
 * and currency, and the target when they name one; VOID `transaction.targetTransactionId`.
 */
export interface RetryAsks {
  amount?: Money;
  targetTransactionId?: string;
}

/** An amount a request asks for as Money; undefined when it is no valid amount (the operation's plan refuses it on its field). */
export function amountAsked(amount: string | undefined, currency: string | undefined): Money | undefined {
  if (amount === undefined || currency === undefined) {
    return undefined;
  }
  try {
    return Money.of(amount, currency);
  } catch (err) {
    if (err instanceof MoneyError) {
      return undefined;
    }
    throw err;
  }
}

/**
 * What a CAPTURE or REFUND asks for: its amount, and its target when it names one (nothing
 * without a valid amount, so that its retry is never recognised by the target alone).
 */
export function amountRetry(transaction: { amount: string; currency: string; targetTransactionId?: string }): RetryAsks {
  const amount = amountAsked(transaction.amount, transaction.currency);
  const target = transaction.targetTransactionId;
  return amount === undefined ? {} : { amount, ...(target !== undefined ? { targetTransactionId: target } : {}) };
}

/**
 * ARCHITECTURE 4.8: the same (order, transaction, apiOperation) with the same canonical body
 * gets the stored body again, whatever its result was; with another body it is refused.
 *
 * A transaction recorded from the acquirer's records (RECORDED_WITHOUT_REQUEST) has no request
 * to compare with: a retry of its operation is answered from it when it asks for what it holds
 * (`retry`: RetryAsks, built only then), and refused otherwise. The acquirer processed the merchant's request
 * once; running it again would be a second charge, capture, refund or void.
 */
export function replayOf(
  stored: StoredResponse | null,
  requestHash: string,
  ids: { orderId: string; transactionId: string },
  retry?: () => RetryAsks,
): JsonObject | null {
  if (!stored) {
    return null;
  }
  if (stored.requestHash === requestHash) {
    return stored.body;
  }
  if (stored.requestHash === RECORDED_WITHOUT_REQUEST && retry !== undefined && asksForRecorded(stored.body, retry())) {
    return stored.body;
  }
  throw GatewayError.invalidRequest(
    `Transaction '${ids.transactionId}' on order '${ids.orderId}' was already processed with different values. Use a new transaction id for a new request.`,
  );
}

/** A transaction id is unique within its order (the spec's path identifiers table). */
export function transactionIdTaken(transactionId: string): GatewayError {
  return GatewayError.invalidField(
    'transactionid',
    'INVALID',
    `Value '${transactionId}' is invalid. The transaction id is already used on this order by another operation.`,
  );
}

export function noSuchTransaction(transactionId: string): GatewayError {
  return GatewayError.invalidField(
    'transactionid',
    'INVALID',
    `Value '${transactionId}' is invalid. The order has no transaction with this id.`,
  );
}

/**
 * An UPDATE continues a transaction that is still open (PENDING or UNKNOWN) and, when the caller
 * names it, that the operation it continues created. Anything else would write over a result
 * the merchant was given: a browser payment's time-out recorded over the card PAY that reused
 * the id of an initiate whose own record was refused, or over a payment already completed.
 */
export function assertUpdatable(existing: TransactionRow, updates: string | null): void {
  if (updates !== null && existing.apiOperation !== updates) {
    throw transactionIdTaken(existing.transactionId);
  }
  if (existing.result === 'SUCCESS' || existing.result === 'FAILURE') {
    throw GatewayError.invalidRequest(
      `Transaction '${existing.transactionId}' is already complete (result ${existing.result}) and cannot be changed.`,
    );
  }
}

/** Whether `retry` asks for something, and each thing it asks for is what the transaction in `body` (its stored response) holds. */
function asksForRecorded(body: JsonObject, retry: RetryAsks): boolean {
  const transaction = objectOrEmpty(body.transaction);
  const { amount, targetTransactionId } = retry;
  if (amount === undefined && targetTransactionId === undefined) {
    return false;
  }
  const sameAmount =
    amount === undefined ||
    (typeof transaction.amount === 'number' && transaction.currency === amount.currency && Money.of(String(transaction.amount), amount.currency).equals(amount));
  return sameAmount && (targetTransactionId === undefined || transaction.targetTransactionId === targetTransactionId);
}
