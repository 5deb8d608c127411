import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import { RequestEnvelope } from '../envelope';
import { Verbatim } from '../verbatim';
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
 *      ledger knows it (null for a new order). A cheap read: one query, no lock, no write.
 *   2. `record` after the side effect: writes or updates the transaction in one database
 *      transaction with the order row locked (fencing checked again, replay and id reuse
 *      checked again, totals and status derived, money limits enforced, webhook outbox seam
 *      called, response stored for replays) and answers the final response body.
 *
 * The ledger owns these fields of every response it stores and returns, whatever the caller
 * put there: `order.{id, amount, currency, status, totalAuthorizedAmount, totalCapturedAmount,
 * totalRefundedAmount, creationTime, lastUpdatedTime}`, `transaction.{id, type, amount,
 * currency, targetTransactionId}`, `result`, `response.gatewayCode`, and `timeOfRecord` when the
 * caller gave none. Card numbers in stored bodies are masked 6.4 (the ledger never stores a
 * PAN); a service answering with UNMASK adds the full number to its own reply after record.
 *
 * Errors: a fencing token older than the order's last one is `ORDER_LOCK_LOST` (the edge
 * answers LOCK_FAILURE); a replay with another body, a reused transaction id, a currency other
 * than the order's, or a refund beyond the refundable amount is a 400. A service that gets an
 * error from `record` after a side effect must reverse that side effect before answering.
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

/** The void type of each transaction type that can be voided (a VOID's type is its target's). */
export const VOID_TYPE_OF = {
  AUTHORIZATION: 'VOID_AUTHORIZATION',
  CAPTURE: 'VOID_CAPTURE',
  PAYMENT: 'VOID_PAYMENT',
  REFUND: 'VOID_REFUND',
} as const satisfies Partial<Record<TransactionType, TransactionType>>;

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

export const RECORD_MODES = ['CREATE', 'UPDATE'] as const;
export type RecordMode = (typeof RECORD_MODES)[number];

/** A decimal amount as the ledger's messages carry it: digits, optionally a point and decimals. */
export const LEDGER_AMOUNT = /^\d{1,13}(\.\d{1,4})?$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const CURRENCY = /^[A-Z]{3}$/;
/** Gateway codes and funding types are enumerations of upper-case words. */
const CODE = /^[A-Z0-9_]{1,40}$/;

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
  /** The tax included in `amount`, when the operation named it (a full refund's default tax). */
  taxAmount?: string;
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
  /** YYYY-MM-DDThh:mm:ss.SSSZ */
  creationTime: string;
  lastUpdatedTime: string;
  /** In the order they were first recorded. */
  transactions: LedgerTransactionView[];
}

/**
 * Spec refund rule 2: a standalone refund opens an order of its own, whose first transaction is
 * the refund. Such an order takes no payment after it: a refund there is measured against
 * nothing captured (docs/decisions/refund-rules.md), so a payment on it would make the refund
 * limit meaningless. Transactions in the order they were recorded.
 */
export function isStandaloneRefundOrder(transactions: readonly { type: TransactionType }[]): boolean {
  const first = transactions[0]?.type;
  return first === 'REFUND' || first === 'REFUND_REQUEST';
}

/** `order-transaction.ledger.begin.v1` */
export class BeginOperationMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  orderId: string;

  @IsString()
  @Length(1, 40)
  transactionId: string;

  @IsString()
  @Matches(CODE)
  apiOperation: string;

  /** HMAC-SHA256 (hex), under the deployment's request hash key, of the canonical request body without `correlationId` (see RequestHasher). */
  @Matches(SHA256_HEX)
  requestHash: string;

  /**
   * True for operations that address an existing transaction by design
   * (CONFIRM_BROWSER_PAYMENT confirms its initiate's transaction).
   */
  @IsOptional()
  @IsBoolean()
  addressesExistingTransaction?: boolean;
}

export type BeginOperationReply =
  | { outcome: 'PROCEED'; order: LedgerOrderView | null }
  | { outcome: 'REPLAY'; body: JsonObject };

export class RecordOrderData {
  /** The order's currency: a new order takes it; on an existing order it must be the order's. */
  @Matches(CURRENCY)
  currency: string;

  /** order.amount as the merchant gave it (defaults to the transaction amount on a new order). */
  @IsOptional()
  @Matches(LEDGER_AMOUNT)
  amount?: string;

  /**
   * Order-level data to keep and return, in the shape the order retrieval returns it at its
   * top level (description, reference, custom, item, tax, shipping, customer...). Merged into
   * what the ledger already holds, key by key: a key given here replaces the stored one.
   */
  @IsOptional()
  @Verbatim()
  @IsObject()
  details?: JsonObject;

  /** https URL for webhook notifications on this order, if the request named one. */
  @IsOptional()
  @IsString()
  @Matches(/^https:\/\/\S{4,}$/)
  notificationUrl?: string;
}

export class RecordTransactionData {
  @IsIn(TRANSACTION_TYPES)
  type: TransactionType;

  @Matches(LEDGER_AMOUNT)
  amount: string;

  @Matches(CURRENCY)
  currency: string;

  @IsIn(TRANSACTION_RESULTS)
  result: TransactionResult;

  @Matches(CODE)
  gatewayCode: string;

  @IsOptional()
  @IsString()
  @Length(1, 40)
  targetTransactionId?: string;

  @IsOptional()
  @Matches(CODE)
  fundingType?: string;

  /**
   * The tax included in `amount` (the request's `transaction.taxAmount`, or `order.taxAmount`
   * of a payment), in the transaction's currency. Captures and payments that give it make the
   * default `taxAmount` of a full refund (the total tax captured on the order).
   */
  @IsOptional()
  @Matches(LEDGER_AMOUNT)
  taxAmount?: string;
}

/** `order-transaction.ledger.record.v1` */
export class RecordOperationMessage {
  /** Its fencingToken is required: every ledger write is fenced. */
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  orderId: string;

  @IsString()
  @Length(1, 40)
  transactionId: string;

  @IsString()
  @Matches(CODE)
  apiOperation: string;

  @Matches(SHA256_HEX)
  requestHash: string;

  /**
   * CREATE a new transaction, or UPDATE the existing one (a browser payment completing). An
   * UPDATE keeps the transaction's type, except REFUND_REQUEST becoming REFUND once approved.
   */
  @IsIn(RECORD_MODES)
  mode: RecordMode;

  /**
   * UPDATE only: the operation that created the transaction this record continues
   * (INITIATE_BROWSER_PAYMENT for a browser payment's steps). The ledger refuses to update a
   * transaction another operation created under the same id, such as a card PAY made with the
   * id of an initiate whose own record was refused. Optional so the two sides of a rolling
   * deploy can go in either order; without it only the transaction's result is checked (still
   * open: PENDING or UNKNOWN).
   */
  @IsOptional()
  @Matches(CODE)
  updates?: string;

  /**
   * Begin answered PROCEED with no order. A hint: the ledger then writes the new order first,
   * in one statement of its own when nothing else is written with it, and goes the locked way
   * only if the order exists by now (a concurrent first record). Wrong or absent, it costs a
   * round trip, never correctness.
   */
  @IsOptional()
  @IsBoolean()
  newOrder?: boolean;

  /**
   * The `agreement.customData` of `response` (and of `order.details`) is the stored agreement's
   * text, filled in because the request gave none (docs/decisions/agreements.md). The ledger
   * keeps it only if the agreement still holds that text when the record is written, reading it
   * under a lock a payer's erasure takes: an erasure that cleared it after the operation read it
   * leaves it out of the record (docs/decisions/payer-personal-data.md, amendment 2026-11-27).
   */
  @IsOptional()
  @IsBoolean()
  storedAgreementText?: boolean;

  @ValidateNested()
  @Type(() => RecordOrderData)
  order: RecordOrderData;

  @ValidateNested()
  @Type(() => RecordTransactionData)
  transaction: RecordTransactionData;

  /**
   * The operation's response body, without the fields the edge adds (`merchant`, `version`,
   * `correlationId`). The ledger completes the fields it owns (see above), stores the result
   * for replays and retrieval, and returns it.
   */
  @Verbatim()
  @IsObject()
  response: JsonObject;
}

export interface RecordOperationReply {
  body: JsonObject;
}
