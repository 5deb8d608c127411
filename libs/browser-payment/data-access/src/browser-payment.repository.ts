import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ExpiredPayment, ExpiredPaymentsCursor, JsonObject } from '@gateway/contracts';
import { DataSource, EntityManager } from 'typeorm';
import type { BrowserPaymentEntity } from './browser-payment.entity';
import { CONFIRM_AWAITED_PREDICATE, EXPIRY_DUE_PREDICATE } from './payment-columns';
import type { ProviderCaptureEntity } from './provider-capture.entity';
import type { ProviderRefundEntity } from './provider-refund.entity';

/**
 * A payment as the steps see it; the execution lease is the repository's own (claimExecution), the
 * retention's mark the payer-data erasure's (a step's write only clears it).
 */
export type BrowserPaymentRow = Omit<BrowserPaymentEntity, 'executionLeaseUntil' | 'personalDataStrippedAt'>;
export type ProviderRefundRow = Omit<ProviderRefundEntity, 'payment'>;
export type ProviderCaptureRow = Omit<ProviderCaptureEntity, 'payment'>;

/** What a step may change on a payment; everything else is fixed at initiate. */
export type PaymentChanges = Partial<
  Pick<
    BrowserPaymentRow,
    | 'interactionStatus'
    | 'result'
    | 'gatewayCode'
    | 'payerOutcome'
    | 'amount'
    | 'request'
    | 'providerDetails'
    | 'timeRedirected'
    | 'timeReturned'
    | 'timeCompleted'
  >
>;

/** The state a step expects to find: a step never applies to a payment another step has moved. */
export type PaymentState = Pick<BrowserPaymentRow, 'interactionStatus' | 'result'>;

const COLUMNS: Record<keyof BrowserPaymentRow, string> = {
  id: 'id',
  merchantId: 'merchant_id',
  orderId: 'order_id',
  transactionId: 'transaction_id',
  provider: 'provider',
  merchantMode: 'merchant_mode',
  operation: 'operation',
  confirmation: 'confirmation',
  currency: 'currency',
  amount: 'amount',
  interactionStatus: 'interaction_status',
  result: 'result',
  gatewayCode: 'gateway_code',
  payerOutcome: 'payer_outcome',
  tokenHash: 'token_hash',
  tokenExpiresAt: 'token_expires_at',
  providerReference: 'provider_reference',
  returnUrl: 'return_url',
  request: 'request',
  providerDetails: 'provider_details',
  timeInitiated: 'time_initiated',
  timeRedirected: 'time_redirected',
  timeReturned: 'time_returned',
  timeCompleted: 'time_completed',
  updatedAt: 'updated_at',
};
const JSON_COLUMNS = new Set<keyof BrowserPaymentRow>(['request', 'providerDetails']);
const KEYS = Object.keys(COLUMNS) as (keyof BrowserPaymentRow)[];
/** Amounts as text: a JS number would round. */
const columnsOf = (prefix: string) =>
  KEYS.map((key) => (key === 'amount' ? `${prefix}amount::text AS amount` : `${prefix}${COLUMNS[key]} AS "${key}"`)).join(', ');
const SELECT = columnsOf('');

/**
 * The operations made at the provider and kept here once per transaction id (its idempotency key
 * there): provider_refunds and provider_captures, alike but for the key's column. One SQL for both.
 */
const KEPT = {
  refund: { table: 'browser_payment.provider_refunds', key: 'refund_transaction_id', field: 'refundTransactionId' },
  capture: { table: 'browser_payment.provider_captures', key: 'capture_transaction_id', field: 'captureTransactionId' },
} as const;
type KeptKind = keyof typeof KEPT;
type KeptRow<K extends KeptKind> = K extends 'refund' ? ProviderRefundRow : ProviderCaptureRow;

/**
 * browser-payment's SQL. Steps of a payment are conditional updates (`WHERE` the state the step
 * expects), so a step can never apply twice or to a payment another step has moved, whatever
 * the order lock did.
 */
@Injectable()
export class BrowserPaymentRepository {
  constructor(@InjectDataSource('browser_payment') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): BrowserPaymentRepository {
    return new BrowserPaymentRepository(dataSource);
  }

  /**
   * A new payment. A row left for the same transaction by an initiate whose ledger record failed
   * (so nobody ever got its redirect URL) is replaced; one whose journey has started is not, and
   * false is returned.
   */
  async saveInitiated(row: BrowserPaymentRow): Promise<boolean> {
    const values = KEYS.map((key) => valueOf(key, row[key]));
    const placeholders = KEYS.map((key, i) => `$${i + 1}${cast(key)}`).join(', ');
    const updates = KEYS.filter((key) => !['merchantId', 'orderId', 'transactionId'].includes(key))
      .map((key) => `${COLUMNS[key]} = EXCLUDED.${COLUMNS[key]}`)
      .join(', ');
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO browser_payment.payments (${KEYS.map((k) => COLUMNS[k]).join(', ')})
       VALUES (${placeholders})
       ON CONFLICT (merchant_id, order_id, transaction_id) DO UPDATE SET ${updates}
        WHERE payments.interaction_status = 'INITIATED'
       RETURNING 1`,
      values,
    );
    return rows.length === 1;
  }

  async findByTokenHash(tokenHash: Buffer): Promise<BrowserPaymentRow | null> {
    const rows: BrowserPaymentRow[] = await this.dataSource.query(
      `SELECT ${SELECT} FROM browser_payment.payments WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async findById(id: string): Promise<BrowserPaymentRow | null> {
    const rows: BrowserPaymentRow[] = await this.dataSource.query(`SELECT ${SELECT} FROM browser_payment.payments WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /**
   * The database's time: the one clock every browser-payment replica judges a redirect token's
   * expiry by. Each pod's own clock drifts from the others by seconds; judged by those, the
   * sweep on one replica could time out a payment whose provider page another still shows the
   * payer as live. clock_timestamp(), not now(): the time of asking, even inside a transaction.
   */
  async databaseNow(): Promise<Date> {
    const rows: { now: Date }[] = await this.dataSource.query('SELECT clock_timestamp() AS now');
    return rows[0].now;
  }

  /**
   * Payments whose token expired by `now` with their journey still open, and those waiting for
   * the merchant's confirm since `returnedBy` or before (their confirm window passed), oldest
   * token first (then by id), after `after` when given. Each half is read by its own partial
   * index (payments_expiry_due_idx by expiry, payments_confirm_awaited_idx by return time) and
   * cut to the page before they are merged: a plain OR of the two would read every payment
   * still within its window on each sweep.
   */
  async findExpired(now: Date, returnedBy: Date, limit: number, after?: ExpiredPaymentsCursor): Promise<ExpiredPayment[]> {
    const cursor = after ? 'AND (token_expires_at, id) > ($4::timestamptz, $5::uuid)' : '';
    const columns = 'id AS "paymentId", merchant_id AS "merchantId", order_id AS "orderId", token_expires_at AS "tokenExpiresAt"';
    const rows: (Omit<ExpiredPayment, 'tokenExpiresAt'> & { tokenExpiresAt: Date })[] = await this.dataSource.query(
      `SELECT * FROM (
         (SELECT ${columns} FROM browser_payment.payments
           WHERE ${EXPIRY_DUE_PREDICATE} AND token_expires_at <= $1 ${cursor}
           ORDER BY token_expires_at, id LIMIT $3)
         UNION ALL
         (SELECT ${columns} FROM browser_payment.payments
           WHERE ${CONFIRM_AWAITED_PREDICATE} AND time_returned <= $2 AND token_expires_at <= $1 ${cursor}
           ORDER BY token_expires_at, id LIMIT $3)
       ) due
       ORDER BY "tokenExpiresAt", "paymentId"
       LIMIT $3`,
      after ? [now, returnedBy, limit, after.tokenExpiresAt, after.paymentId] : [now, returnedBy, limit],
    );
    return rows.map((row) => ({ ...row, tokenExpiresAt: row.tokenExpiresAt.toISOString() }));
  }

  async findByTransaction(merchantId: string, orderId: string, transactionId: string): Promise<BrowserPaymentRow | null> {
    const rows: BrowserPaymentRow[] = await this.dataSource.query(
      `SELECT ${SELECT} FROM browser_payment.payments WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3`,
      [merchantId, orderId, transactionId],
    );
    return rows[0] ?? null;
  }

  /**
   * Moves the payment from `expected` with `changes` and runs `alongside` (the ledger record of
   * the step) before committing: if it fails the change is rolled back, so the payment and the
   * ledger never disagree about a step. Null when the payment is no longer in `expected`.
   */
  async transition<T>(
    id: string,
    expected: PaymentState,
    changes: PaymentChanges,
    alongside: (updated: BrowserPaymentRow) => Promise<T>,
  ): Promise<{ payment: BrowserPaymentRow; outcome: T } | null> {
    return this.dataSource.transaction(async (manager) => {
      const payment = await this.update(manager, id, expected, changes);
      return payment ? { payment, outcome: await alongside(payment) } : null;
    });
  }

  /**
   * Claims the execution of the payment at the provider until `until`, if it is in `expected`
   * and no other attempt holds an unexpired claim: false otherwise. The claim is a lease, not a
   * lock held open: no connection is kept while the provider is called, and an attempt that
   * died with it is replaced once `until` passed.
   */
  async claimExecution(id: string, expected: PaymentState, until: Date, now: Date): Promise<boolean> {
    const rows: [unknown[], number] = await this.dataSource.query(
      `UPDATE browser_payment.payments SET execution_lease_until = $4
        WHERE id = $1 AND interaction_status = $2 AND result = $3
          AND (execution_lease_until IS NULL OR execution_lease_until <= $5)
        RETURNING 1`,
      [id, expected.interactionStatus, expected.result, until, now],
    );
    // The pg driver answers an UPDATE ... RETURNING with [rows, count].
    return rows[0].length > 0;
  }

  /** Ends the claim taken until `until` (nothing if another attempt's claim replaced it). */
  async releaseExecution(id: string, until: Date): Promise<void> {
    await this.dataSource.query(
      'UPDATE browser_payment.payments SET execution_lease_until = NULL WHERE id = $1 AND execution_lease_until = $2',
      [id, until],
    );
  }

  /**
   * Removes a payment that never got past its initiate (INITIATED, PENDING) and that the ledger
   * has no transaction for: its initiate was answered LOCK_FAILURE. False when it moved on.
   */
  async discardUnrecorded(id: string): Promise<boolean> {
    const rows: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM browser_payment.payments WHERE id = $1 AND interaction_status = 'INITIATED' AND result = 'PENDING' RETURNING 1`,
      [id],
    );
    return rows[0].length > 0;
  }

  findRefund(paymentId: string, refundTransactionId: string): Promise<ProviderRefundRow | null> {
    return this.findKept('refund', paymentId, refundTransactionId);
  }

  /** False when a refund with this transaction id was recorded first by a concurrent request. */
  insertRefund(refund: ProviderRefundRow): Promise<boolean> {
    return this.insertKept('refund', refund, refund.refundTransactionId);
  }

  findCapture(paymentId: string, captureTransactionId: string): Promise<ProviderCaptureRow | null> {
    return this.findKept('capture', paymentId, captureTransactionId);
  }

  /** False when a capture with this transaction id was recorded first by a concurrent request. */
  insertCapture(capture: ProviderCaptureRow): Promise<boolean> {
    return this.insertKept('capture', capture, capture.captureTransactionId);
  }

  /**
   * The payment of the order that a successful capture recorded here under `captureTransactionId`
   * was taken from (a refund names the capture, not the payment). The payments' unique key on
   * (merchant, order, transaction) finds the order's payments, the captures' key each capture.
   */
  async findCapturedPayment(merchantId: string, orderId: string, captureTransactionId: string): Promise<BrowserPaymentRow | null> {
    const rows: BrowserPaymentRow[] = await this.dataSource.query(
      `SELECT ${columnsOf('p.')}
         FROM browser_payment.payments p
         JOIN browser_payment.provider_captures c ON c.payment_id = p.id
        WHERE p.merchant_id = $1 AND p.order_id = $2 AND c.capture_transaction_id = $3 AND c.result = 'SUCCESS'`,
      [merchantId, orderId, captureTransactionId],
    );
    return rows[0] ?? null;
  }

  private async findKept<K extends KeptKind>(kind: K, paymentId: string, transactionId: string): Promise<KeptRow<K> | null> {
    const { table, key, field } = KEPT[kind];
    const rows: KeptRow<K>[] = await this.dataSource.query(
      `SELECT payment_id AS "paymentId", ${key} AS "${field}", amount::text AS amount, currency, result,
              gateway_code AS "gatewayCode", provider_reference AS "providerReference", created_at AS "createdAt"
         FROM ${table} WHERE payment_id = $1 AND ${key} = $2`,
      [paymentId, transactionId],
    );
    return rows[0] ?? null;
  }

  private async insertKept<K extends KeptKind>(kind: K, row: KeptRow<K>, transactionId: string): Promise<boolean> {
    const { table, key } = KEPT[kind];
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO ${table} (payment_id, ${key}, amount, currency, result, gateway_code, provider_reference, created_at)
       VALUES ($1, $2, $3::numeric, $4, $5, $6, $7, $8)
       ON CONFLICT (payment_id, ${key}) DO NOTHING
       RETURNING 1`,
      [
        row.paymentId,
        transactionId,
        row.amount,
        row.currency,
        row.result,
        row.gatewayCode,
        row.providerReference,
        row.createdAt,
      ],
    );
    return rows.length === 1;
  }

  /**
   * A step's write: `changes` and the step's time, if the payment is still in `expected`; the
   * payment is again one the payer personal-data retention has not stripped (the mark is NULL
   * already but after a retention's strip).
   */
  private async update(
    manager: EntityManager,
    id: string,
    expected: PaymentState,
    changes: PaymentChanges,
  ): Promise<BrowserPaymentRow | null> {
    const keys = Object.keys(changes) as (keyof PaymentChanges)[];
    const sets = keys.map((key, i) => `${COLUMNS[key]} = $${i + 4}${cast(key)}`);
    const rows: [BrowserPaymentRow[], number] = await manager.query(
      `UPDATE browser_payment.payments
          SET ${[...sets, `updated_at = $${keys.length + 4}`, 'personal_data_stripped_at = NULL'].join(', ')}
        WHERE id = $1 AND interaction_status = $2 AND result = $3
        RETURNING ${SELECT}`,
      [id, expected.interactionStatus, expected.result, ...keys.map((key) => valueOf(key, changes[key])), new Date()],
    );
    // The pg driver answers an UPDATE ... RETURNING with [rows, count].
    return rows[0][0] ?? null;
  }
}

function cast(key: keyof BrowserPaymentRow): string {
  return key === 'amount' ? '::numeric' : JSON_COLUMNS.has(key) ? '::jsonb' : '';
}

function valueOf(key: keyof BrowserPaymentRow, value: unknown): unknown {
  return JSON_COLUMNS.has(key) && value !== null && value !== undefined ? JSON.stringify(value as JsonObject) : value;
}
