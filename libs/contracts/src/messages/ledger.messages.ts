import { RequestEnvelope } from '../envelope';
import { JsonObject } from './operation.messages';

/**
 * The order ledger's contract (owned and answered by order-transaction). Any service that
 * performs an order operation (verification, browser-payment, and order-transaction's own
 * refund and card payment use cases) talks to the ledger in two steps:
 *
 *   1. `begin`  before any side effect (acquirer call, provider call): checks the fencing
 *      token, and answers REPLAY with the stored response when the same (order, transaction,
 *      apiOperation) was already processed with the same canonical body, rejects (400) a
 *      transaction id already used for something else, or says PROCEED with the order as the
 *      ledger knows it (null for a new order).
 *   2. `record` after the side effect: writes or updates the transaction in one database
 *      transaction with the order row locked (fencing checked again, totals and status
 *      derived, webhook outbox written, response stored for replays) and answers the final
 *      response body, whose `order` group the ledger completes (id, amount, currency, status,
 *      totals, creationTime, lastUpdatedTime).
 *
 * Amounts are decimal strings ("10.50") everywhere in these messages: never JS numbers.
 */

export const TRANSACTION_TYPES = [
  'AUTHORIZATION',
  'AUTHORIZATION_UPDATE',
  'CAPTURE',
  'PAYMENT',
  'REFUND',
  'REFUND_REQUEST',
  'VERIFICATION',
  'VOID_AUTHORIZATION',
  'VOID_CAPTURE',
  'VOID_PAYMENT',
  'VOID_REFUND',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const TRANSACTION_RESULTS = ['SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN'] as const;
export type TransactionResult = (typeof TRANSACTION_RESULTS)[number];

export const ORDER_STATUSES = [
  'AUTHORIZED',
  'CANCELLED',
  'CAPTURED',
  'EXCESSIVELY_REFUNDED',
  'FAILED',
  'INITIATED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REFUND_REQUESTED',
  'VERIFIED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface LedgerTransactionView {
  id: string;
  type: TransactionType;
  apiOperation: string;
  amount: string;
  currency: string;
  result: TransactionResult;
  gatewayCode: string;
  targetTransactionId?: string;
  /** How the transaction was funded (CARD, PROVIDER_A, ...): decides who can refund it. */
  fundingType?: string;
  createdAt: string;
}

export interface LedgerOrderView {
  id: string;
  currency: string;
  amount: string;
  status: OrderStatus;
  totalAuthorizedAmount: string;
  totalCapturedAmount: string;
  totalRefundedAmount: string;
  transactions: LedgerTransactionView[];
}

/** `order-transaction.ledger.begin.v1` */
export interface BeginOperationMessage {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  /** sha256 (hex) of the canonical request body without `correlationId`. */
  requestHash: string;
  /**
   * True for operations that address an existing transaction by design
   * (CONFIRM_BROWSER_PAYMENT confirms its initiate's transaction).
   */
  addressesExistingTransaction?: boolean;
}

export type BeginOperationReply =
  | { outcome: 'PROCEED'; order: LedgerOrderView | null }
  | { outcome: 'REPLAY'; body: JsonObject };

/** `order-transaction.ledger.record.v1` */
export interface RecordOperationMessage {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  requestHash: string;
  /** CREATE a new transaction, or UPDATE the existing one (a browser payment completing). */
  mode: 'CREATE' | 'UPDATE';
  order: {
    currency: string;
    /** order.amount as the merchant gave it (defaults to the transaction amount on a new order). */
    amount?: string;
    /** Order-level data to keep and return (description, reference, custom, item, tax, shipping...). */
    details?: JsonObject;
    /** https URL for webhook notifications on this order, if the request named one. */
    notificationUrl?: string;
  };
  transaction: {
    type: TransactionType;
    amount: string;
    currency: string;
    result: TransactionResult;
    gatewayCode: string;
    targetTransactionId?: string;
    fundingType?: string;
  };
  /**
   * The operation's response body. The ledger adds the `order` fields it owns (status,
   * totals, amount, currency, id, times) to the `order` group given here, stores the result
   * for replays and returns it.
   */
  response: JsonObject;
}

export interface RecordOperationReply {
  body: JsonObject;
}
