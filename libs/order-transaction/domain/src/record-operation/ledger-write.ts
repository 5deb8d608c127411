import type { JsonObject } from '@gateway/contracts';
import type { LedgerWrite, TransactionRow } from '@gateway/order-transaction/data-access';
import type { OrderSnapshot } from '../ledger-response/order-snapshot';
import type { LedgerEntry } from '../order-state/derive-order-state';

/** What a record leaves on the order row besides its derived state. */
export interface OrderRowFields {
  merchantId: string;
  details: JsonObject;
  notificationUrl: string | null;
  fence: bigint;
  /** The order's operation count after the record: numbers its rows. */
  sequence: number;
  at: Date;
}

/** The order row a record writes: `order` (derived state, amount, times) and the row's own fields. */
export function orderRowWrite(order: OrderSnapshot, fields: OrderRowFields): LedgerWrite['order'] {
  return {
    merchantId: fields.merchantId,
    orderId: order.id,
    currency: order.currency,
    amount: order.amount.toFixed(),
    status: order.status,
    totalAuthorizedAmount: order.totalAuthorizedAmount.toFixed(),
    totalCapturedAmount: order.totalCapturedAmount.toFixed(),
    totalRefundedAmount: order.totalRefundedAmount.toFixed(),
    details: fields.details,
    notificationUrl: fields.notificationUrl,
    lastFencingToken: fields.fence.toString(),
    operationCount: fields.sequence,
    updatedAt: fields.at,
  };
}

/** A stored transaction as the ledger's arithmetic and rules take it. */
export function entryOfRow(row: TransactionRow): LedgerEntry {
  return { id: row.transactionId, type: row.type, amount: row.amount, result: row.result, targetTransactionId: row.targetTransactionId };
}
