import type {
  JsonObject,
  MerchantMode,
  OrderStatus,
  TransactionResult,
  TransactionType,
} from '@gateway/contracts';

/** An order as the ledger reads it. Money and fencing tokens are exact decimal strings. */
export interface OrderRow {
  merchantId: string;
  orderId: string;
  currency: string;
  amount: string;
  status: OrderStatus;
  totalAuthorizedAmount: string;
  totalCapturedAmount: string;
  totalRefundedAmount: string;
  details: JsonObject;
  notificationUrl: string | null;
  lastFencingToken: string;
  operationCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface TransactionRow {
  transactionId: string;
  sequence: number;
  apiOperation: string;
  type: TransactionType;
  amount: string;
  currency: string;
  result: TransactionResult;
  gatewayCode: string;
  targetTransactionId: string | null;
  fundingType: string | null;
  /** The tax included in amount, when the operation named it. */
  taxAmount: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface StoredResponse {
  requestHash: string;
  body: JsonObject;
}

/**
 * The request hash stored with a transaction recorded from the acquirer's records
 * (`transactions record-lost`): the merchant's request was lost with the database, so there is
 * no hash of it. No HMAC-SHA256 is 64 zeros in practice (2^-256), and the column's check holds.
 * A retry of that operation is matched on what it asks for instead (replayOf: its amount and
 * currency, a void's target).
 */
export const RECORDED_WITHOUT_REQUEST = '0'.repeat(64);

/** What begin and record need to know about an order besides its row. */
export interface OrderContents {
  /** By sequence: the order they were first recorded in. */
  transactions: TransactionRow[];
  /** The response stored for the (transaction, apiOperation) asked about, if any. */
  stored: StoredResponse | null;
}

/** An order row locked for a record, with its contents read after the lock. */
export interface LockedOrder {
  order: OrderRow;
  contents: OrderContents;
}

/**
 * An order and its contents as one statement read them, without a lock, with the version of
 * the row it read (its `xmin`, the transaction that last wrote it). Every ledger write to an
 * order's transactions or stored responses also writes its row, in the same database
 * transaction, so while the row keeps that version, the whole order is as read.
 */
export interface SeenOrder extends LockedOrder {
  version: string;
  /** The operation whose stored response `contents.stored` is: a view serves that operation's records only. */
  operation: { transactionId: string; apiOperation: string };
}

/**
 * The transactions of an order an operation may act on (a refund's payments and captures, a
 * capture's authorisations), whose stored responses begin reads with the order.
 */
export interface TargetQuery {
  /** Successful transactions of these types. */
  types: readonly TransactionType[];
  /** The one the request names, if it names one: only its response is read. */
  transactionId?: string;
}

/** Begin's view of an order, with the latest stored response of each transaction its TargetQuery matched. */
export interface SeenOrderWithTargets {
  seen: SeenOrder;
  targetResponses: ReadonlyMap<string, JsonObject>;
}

/** The values of a transaction a record writes (inserted, or updated in place). */
export interface TransactionWrite {
  transactionId: string;
  apiOperation: string;
  type: TransactionType;
  amount: string;
  currency: string;
  result: TransactionResult;
  gatewayCode: string;
  targetTransactionId: string | null;
  fundingType: string | null;
  taxAmount: string | null;
  /**
   * What the notification of this card transaction's outcome needs, kept while the outcome is
   * open (a reservation, an UNKNOWN outcome) for a resolution that serves no request: null when
   * the outcome would not be announced, and on every other write (a completion, a resolution:
   * it is then used up). Undefined: null.
   */
  announcement?: ReservedAnnouncement | null;
}

/**
 * How the completion of an open card transaction would have announced it, kept on the
 * transaction (`transactions.announcement`) when the merchant had notifications enabled and the
 * order an https URL (docs/decisions/unknown-resolution.md, amendment 2026-11-27): the URL in
 * force for that operation, the merchant's mode, and the notification secret as the request's
 * profile carried it, sealed under WEBHOOK_SECRET_KEYS (which the ledger does not hold: the same
 * ciphertext the outbox row would have held). Never a secret in clear, never card data.
 */
export interface ReservedAnnouncement {
  url: string;
  merchantMode: MerchantMode;
  sealedSecret: string;
}

/** Everything one record writes: the order row, the transaction, the stored response. */
export interface LedgerWrite {
  order: Omit<OrderRow, 'createdAt'>;
  transaction: TransactionWrite;
  /** `replaces`: the response stored for this operation is replaced (a reservation completed). */
  response: { apiOperation: string; requestHash: string; body: JsonObject; replaces?: boolean };
  /** The order's operation count after this write: numbers the new rows. */
  sequence: number;
  at: Date;
}
