import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PaymentOperation } from './payment-columns';
import type { SimulatedPaymentStatus, SimulatedProviderPaymentEntity } from './simulated-provider-payment.entity';
import type { SimulatedProviderCaptureEntity } from './simulated-provider-capture.entity';
import type { SimulatedProviderRefundEntity } from './simulated-provider-refund.entity';

export type SimulatedPaymentRow = SimulatedProviderPaymentEntity;
export type SimulatedRefundRow = Omit<SimulatedProviderRefundEntity, 'payment'>;
export type SimulatedCaptureRow = Omit<SimulatedProviderCaptureEntity, 'payment'>;

const SELECT = `reference, provider, operation, currency, amount::text AS amount, status,
  captured_amount::text AS "capturedAmount", refunded_amount::text AS "refundedAmount",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const REFUND_SELECT = `payment_reference AS "paymentReference", refund_id AS "refundId", amount::text AS amount, currency,
  approved, provider_code AS "providerCode", reference, created_at AS "createdAt"`;

const CAPTURE_SELECT = `payment_reference AS "paymentReference", capture_id AS "captureId", amount::text AS amount, currency,
  approved, provider_code AS "providerCode", reference, created_at AS "createdAt"`;

/**
 * The simulators' books. Every change is one conditional statement, so a double click, a
 * retried request or two replicas racing can move a simulated payment only once; a refund or a
 * capture is also made once per key, however often and however concurrently it is asked for.
 */
@Injectable()
export class SimulatedProviderRepository {
  constructor(@InjectDataSource('browser_payment') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): SimulatedProviderRepository {
    return new SimulatedProviderRepository(dataSource);
  }

  async create(row: Omit<SimulatedPaymentRow, 'createdAt' | 'updatedAt'>, at: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO browser_payment.simulated_provider_payments
         (reference, provider, operation, currency, amount, status, captured_amount, refunded_amount, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::numeric, $6, $7::numeric, $8::numeric, $9, $9)`,
      [row.reference, row.provider, row.operation, row.currency, row.amount, row.status, row.capturedAmount, row.refundedAmount, at],
    );
  }

  async find(reference: string): Promise<SimulatedPaymentRow | null> {
    const rows: SimulatedPaymentRow[] = await this.dataSource.query(
      `SELECT ${SELECT} FROM browser_payment.simulated_provider_payments WHERE reference = $1`,
      [reference],
    );
    return rows[0] ?? null;
  }

  /** `from` -> `to`; null when the payment was not in `from` (then nothing changed). */
  async move(reference: string, from: SimulatedPaymentStatus[], to: SimulatedPaymentStatus, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.updated(
      `UPDATE browser_payment.simulated_provider_payments SET status = $3, updated_at = $4
        WHERE reference = $1 AND status = ANY($2::varchar[]) RETURNING ${SELECT}`,
      [reference, from, to, at],
    );
  }

  /** An approved payment executed for `amount`: authorised, or captured in full. */
  async execute(reference: string, operation: PaymentOperation, amount: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.updated(
      `UPDATE browser_payment.simulated_provider_payments
          SET status = $3, amount = $4::numeric, captured_amount = $5::numeric, updated_at = $6
        WHERE reference = $1 AND status = 'APPROVED' AND operation = $2 RETURNING ${SELECT}`,
      [reference, operation, operation === 'PAY' ? 'CAPTURED' : 'AUTHORIZED', amount, operation === 'PAY' ? amount : '0', at],
    );
  }

  /**
   * Takes back an execution: nothing authorised or captured remains. Never once money moved
   * after it: a refund, or a capture of an authorisation (the ledger holds that capture).
   */
  async void(reference: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.updated(
      `UPDATE browser_payment.simulated_provider_payments SET status = 'VOIDED', captured_amount = 0, updated_at = $2
        WHERE reference = $1 AND status IN ('AUTHORIZED', 'CAPTURED') AND refunded_amount = 0
          AND (operation = 'PAY' OR captured_amount = 0) RETURNING ${SELECT}`,
      [reference, at],
    );
  }

  /**
   * The refund `refundId` (its key, unique within the payment) of `amount`: made once, and the
   * answer to every call with the key. The first call decides it on the payment's row, locked
   * (approved when the payment is captured and the amount fits in what is left, `reference` being
   * its own reference; declined otherwise), and stores it with its outcome and, approved, adds
   * its amount to the refunded amount, in one statement. A call whose key is stored (concurrent
   * ones wait for the lock, then find it) inserts and moves nothing, whatever amount it asks: it
   * gets the stored refund, whose amount the caller compares. Null when there is no such payment.
   */
  async refund(
    paymentReference: string,
    refundId: string,
    amount: string,
    reference: string,
    at: Date,
  ): Promise<SimulatedRefundRow | null> {
    // The payment's row is read FOR UPDATE, which waits for a concurrent refund of the payment
    // and then reads the row as that one left it: the decision is made on the latest amounts, and
    // two refunds under different keys cannot both take the same money. The insert's ON CONFLICT
    // sees a refund committed under the key meanwhile (READ COMMITTED), and then nothing moves:
    // the update refunds only what the insert stored.
    const [made] = (await this.dataSource.query(
      `WITH payment AS (
         SELECT reference, currency, status, captured_amount, refunded_amount
           FROM browser_payment.simulated_provider_payments WHERE reference = $1 FOR UPDATE
       ), decided AS (
         SELECT reference, currency,
                CASE WHEN status <> 'CAPTURED' THEN 'NOTHING_CAPTURED'
                     WHEN refunded_amount + $3::numeric > captured_amount THEN 'REFUND_EXCEEDS_CAPTURED_AMOUNT'
                     ELSE 'REFUNDED' END AS code
           FROM payment
       ), stored AS (
         INSERT INTO browser_payment.simulated_provider_refunds
           (payment_reference, refund_id, amount, currency, approved, provider_code, reference, created_at)
         SELECT reference, $2, $3::numeric, currency, code = 'REFUNDED', code,
                CASE WHEN code = 'REFUNDED' THEN $4::varchar END, $5
           FROM decided
         ON CONFLICT (payment_reference, refund_id) DO NOTHING
         RETURNING *
       ), moved AS (
         UPDATE browser_payment.simulated_provider_payments p
            SET refunded_amount = p.refunded_amount + stored.amount, updated_at = $5
           FROM stored WHERE p.reference = stored.payment_reference AND stored.approved
       )
       SELECT ${REFUND_SELECT} FROM stored`,
      [paymentReference, refundId, amount, reference, at],
    )) as SimulatedRefundRow[];
    return made ?? (await this.findRefund(paymentReference, refundId));
  }

  /**
   * The capture `captureId` (its key, unique within the payment) of `amount` from an authorised
   * payment: made once, and the answer to every call with the key, as refunds are (above). The
   * first call decides it on the payment's row, locked: approved when the payment was initiated
   * with AUTHORIZE, is authorised or already partly captured, and the amount fits in what is left
   * of the authorised amount (`reference` its own reference); declined otherwise. Approved, its
   * amount is added to the captured amount and the payment is CAPTURED, in the same statement. A
   * call whose key is stored inserts and moves nothing, whatever amount it asks, and gets the
   * stored capture. Null when there is no such payment.
   */
  async capture(
    paymentReference: string,
    captureId: string,
    amount: string,
    reference: string,
    at: Date,
  ): Promise<SimulatedCaptureRow | null> {
    // As for refunds: FOR UPDATE waits for a concurrent capture (or void) of the payment and
    // decides on the row as it left it, so two keys cannot both take the same authorised money,
    // and the update captures only what the insert stored.
    const [made] = (await this.dataSource.query(
      `WITH payment AS (
         SELECT reference, currency, operation, status, amount, captured_amount
           FROM browser_payment.simulated_provider_payments WHERE reference = $1 FOR UPDATE
       ), decided AS (
         SELECT reference, currency,
                CASE WHEN operation <> 'AUTHORIZE' OR status NOT IN ('AUTHORIZED', 'CAPTURED') THEN 'NOT_AUTHORIZED'
                     WHEN captured_amount + $3::numeric > amount THEN 'CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT'
                     ELSE 'CAPTURED' END AS code
           FROM payment
       ), stored AS (
         INSERT INTO browser_payment.simulated_provider_captures
           (payment_reference, capture_id, amount, currency, approved, provider_code, reference, created_at)
         SELECT reference, $2, $3::numeric, currency, code = 'CAPTURED', code,
                CASE WHEN code = 'CAPTURED' THEN $4::varchar END, $5
           FROM decided
         ON CONFLICT (payment_reference, capture_id) DO NOTHING
         RETURNING *
       ), moved AS (
         UPDATE browser_payment.simulated_provider_payments p
            SET captured_amount = p.captured_amount + stored.amount, status = 'CAPTURED', updated_at = $5
           FROM stored WHERE p.reference = stored.payment_reference AND stored.approved
       )
       SELECT ${CAPTURE_SELECT} FROM stored`,
      [paymentReference, captureId, amount, reference, at],
    )) as SimulatedCaptureRow[];
    return made ?? (await this.findCapture(paymentReference, captureId));
  }

  /** The capture made under `captureId`, with the outcome it was answered. */
  async findCapture(paymentReference: string, captureId: string): Promise<SimulatedCaptureRow | null> {
    const rows: SimulatedCaptureRow[] = await this.dataSource.query(
      `SELECT ${CAPTURE_SELECT} FROM browser_payment.simulated_provider_captures WHERE payment_reference = $1 AND capture_id = $2`,
      [paymentReference, captureId],
    );
    return rows[0] ?? null;
  }

  /**
   * Voids an authorisation nothing was captured of: the authorised amount is released. Null when
   * the payment is not an authorisation still AUTHORIZED (captured, voided, never executed); a
   * capture holding the row is waited for, and then the row is checked again.
   */
  async voidAuthorization(reference: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.updated(
      `UPDATE browser_payment.simulated_provider_payments SET status = 'VOIDED', updated_at = $2
        WHERE reference = $1 AND operation = 'AUTHORIZE' AND status = 'AUTHORIZED' AND captured_amount = 0 RETURNING ${SELECT}`,
      [reference, at],
    );
  }

  /** The refund made under `refundId`, with the outcome it was answered. */
  async findRefund(paymentReference: string, refundId: string): Promise<SimulatedRefundRow | null> {
    const rows: SimulatedRefundRow[] = await this.dataSource.query(
      `SELECT ${REFUND_SELECT} FROM browser_payment.simulated_provider_refunds WHERE payment_reference = $1 AND refund_id = $2`,
      [paymentReference, refundId],
    );
    return rows[0] ?? null;
  }

  private async updated(sql: string, params: unknown[]): Promise<SimulatedPaymentRow | null> {
    // The pg driver answers an UPDATE ... RETURNING with [rows, count].
    const [rows] = (await this.dataSource.query(sql, params)) as [SimulatedPaymentRow[], number];
    return rows[0] ?? null;
  }
}
