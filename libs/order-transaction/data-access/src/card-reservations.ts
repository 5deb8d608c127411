import type { TransactionRow } from './ledger-rows';

/**
 * A card operation's reservation (RunReservedOperation, RefundOrder): a transaction written
 * PENDING before its acquirer call, completed by the call's outcome. Not a refund request waiting
 * for approval (recorded PENDING once, no call), nor a browser payment waiting at its provider
 * (PROVIDER_* funding: browser-payment follows the provider). One rule in its two forms, the row
 * check and the SQL condition, built from the same values: the reads that meet a reservation, the
 * inquiry that asks about it and the sweep that finds it abandoned (UnknownInquiries) agree on it.
 */
const RESERVATION = { result: 'PENDING', gatewayCode: 'PENDING', notType: 'REFUND_REQUEST', fundingType: 'CARD' } as const;

/** Whether `row` is written as an operation's reservation is (result and gateway code PENDING, not a refund request), of any funding. */
export function isReservationRow(row: Pick<TransactionRow, 'result' | 'gatewayCode' | 'type'>): boolean {
  return row.result === RESERVATION.result && row.gatewayCode === RESERVATION.gatewayCode && row.type !== RESERVATION.notType;
}

/** Whether `row` is a card operation's reservation. */
export function isCardReservationRow(row: Pick<TransactionRow, 'result' | 'gatewayCode' | 'type' | 'fundingType'>): boolean {
  return row.fundingType === RESERVATION.fundingType && isReservationRow(row);
}

/**
 * isCardReservationRow on order_transaction.transactions, as SQL: the sweep's condition
 * (UnknownInquiries.sweepAbandoned). The sweep cursor's migration (CreateReservationSweep1765200000002)
 * starts it at the oldest row that matched this as it was then written.
 */
export const CARD_RESERVATION_SQL =
  `result = '${RESERVATION.result}' AND gateway_code = '${RESERVATION.gatewayCode}' ` +
  `AND type <> '${RESERVATION.notType}' AND funding_type = '${RESERVATION.fundingType}'`;
