import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PaymentOperation } from './payment-columns';
import type { SimulatedPaymentStatus, SimulatedProviderPaymentEntity } from './simulated-provider-payment.entity';

export type SimulatedPaymentRow = SimulatedProviderPaymentEntity;

const SELECT = `reference, provider, operation, currency, amount::text AS amount, status,
  captured_amount::text AS "capturedAmount", refunded_amount::text AS "refundedAmount",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * The simulators' books. Every change is one conditional statement, so a double click, a
 * retried request or two replicas racing can move a simulated payment only once.
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

  /** Takes back an execution: nothing authorised or captured remains. */
  async void(reference: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.updated(
      `UPDATE browser_payment.simulated_provider_payments SET status = 'VOIDED', captured_amount = 0, updated_at = $2
        WHERE reference = $1 AND status IN ('AUTHORIZED', 'CAPTURED') AND refunded_amount = 0 RETURNING ${SELECT}`,
      [reference, at],
    );
  }

  /** Refunds `amount` of a captured payment; null when that would refund more than was captured. */
  async refund(reference: string, amount: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.updated(
      `UPDATE browser_payment.simulated_provider_payments
          SET refunded_amount = refunded_amount + $2::numeric, updated_at = $3
        WHERE reference = $1 AND status = 'CAPTURED' AND refunded_amount + $2::numeric <= captured_amount
        RETURNING ${SELECT}`,
      [reference, amount, at],
    );
  }

  private async updated(sql: string, params: unknown[]): Promise<SimulatedPaymentRow | null> {
    // The pg driver answers an UPDATE ... RETURNING with [rows, count].
    const [rows] = (await this.dataSource.query(sql, params)) as [SimulatedPaymentRow[], number];
    return rows[0] ?? null;
  }
}
