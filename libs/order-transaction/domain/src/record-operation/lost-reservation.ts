import type { JsonObject } from '@gateway/contracts';
import type { SeenOrder } from '@gateway/order-transaction/data-access';
import type { RecordInput } from './record-input';

/**
 * What the order read again holds after a reservation whose write may have committed with its
 * answer lost (mayHaveCommitted):
 *   OWN      this request's reservation: the transaction as the reservation writes it (its
 *            result and gateway code), its response stored under this request's hash, and the
 *            order's newest fencing token this request's own (a token is one lease, and one
 *            lease serves one request). The write committed: the operation carries on.
 *   NONE     no transaction with this id: the write rolled back (or never ran).
 *   ANOTHER  the transaction id holds something else: another request's reservation (the
 *            merchant's retry under a newer lease), another operation's transaction, or this
 *            reservation with a newer token on the order since (this request's lease lapsed).
 */
export type FoundReservation = { found: 'OWN'; seen: SeenOrder; body: JsonObject } | { found: 'NONE' } | { found: 'ANOTHER'; seen: SeenOrder };

/** `seen`: the order read again for the reservation's operation (null: no such order). */
export function reservationFound(seen: SeenOrder | null, reservation: RecordInput): FoundReservation {
  const transaction = seen?.contents.transactions.find((t) => t.transactionId === reservation.transactionId);
  if (!seen || !transaction) {
    return { found: 'NONE' };
  }
  const { stored } = seen.contents;
  const own =
    transaction.result === reservation.transaction.result &&
    transaction.gatewayCode === reservation.transaction.gatewayCode &&
    stored?.requestHash === reservation.requestHash &&
    BigInt(seen.order.lastFencingToken) === reservation.fence;
  return own ? { found: 'OWN', seen, body: stored.body } : { found: 'ANOTHER', seen };
}
