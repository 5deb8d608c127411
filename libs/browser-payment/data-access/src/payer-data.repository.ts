import type { JsonObject } from '@gateway/contracts';
import { inTransaction } from '@gateway/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { TO_STRIP_PREDICATE, type PaymentResult } from './payment-columns';

/** What a browser payment keeps of its payer (docs/decisions/payer-personal-data.md), with what says whether its journey is over. */
export interface PaymentPayerData {
  id: string;
  transactionId: string;
  result: PaymentResult;
  returnUrl: string;
  request: JsonObject;
  providerDetails: JsonObject | null;
  /** The payment's last step. */
  updatedAt: Date;
}

/**
 * Where browser-payment keeps a payer's personal data for one order: each of its payments'
 * stored request (the initiate's, as the confirm left it), return URL and provider details.
 * The provider refunds and captures, and the simulators' books, hold amounts, codes and
 * references only.
 *
 * Used inside one database transaction that holds the order's payment rows (`payments` with
 * `lock`): a step of a payment writes its row (a conditional UPDATE) in a transaction of its
 * own, so one in progress is waited for and its row read as it committed it, and one that
 * comes after waits for the erasure and finds the row as the erasure left it.
 */
export class BrowserPaymentPayerDataRecords {
  constructor(private readonly manager: EntityManager) {}

  /**
   * The merchant's payments of the order, their rows locked until commit (`lock` false: read
   * only, for a dry run, which then never waits for a live step). Empty when it has none.
   */
  payments(merchantId: string, orderId: string, lock: boolean): Promise<PaymentPayerData[]> {
    return this.manager.query(
      `SELECT id, transaction_id AS "transactionId", result, return_url AS "returnUrl", request, provider_details AS "providerDetails",
              updated_at AS "updatedAt"
         FROM browser_payment.payments
        WHERE merchant_id = $1 AND order_id = $2
        ORDER BY transaction_id${lock ? ' FOR UPDATE' : ''}`,
      [merchantId, orderId],
    );
  }

  /**
   * The order's payments as stripped by the payer personal-data retention: they leave
   * payments_to_strip_idx, which the retention reads, until a later step sets the mark back to NULL.
   */
  async markStripped(merchantId: string, orderId: string): Promise<void> {
    await this.manager.query(`UPDATE browser_payment.payments SET personal_data_stripped_at = now() WHERE merchant_id = $1 AND order_id = $2`, [
      merchantId,
      orderId,
    ]);
  }

  /**
   * The payment's payer data as the erasure leaves it. `updated_at` stays: it is the payment's
   * last step, and the erasure is not one.
   */
  async write(payment: Pick<PaymentPayerData, 'id' | 'returnUrl' | 'request' | 'providerDetails'>): Promise<void> {
    await this.manager.query(
      `UPDATE browser_payment.payments SET return_url = $2, request = $3::jsonb, provider_details = $4::jsonb WHERE id = $1`,
      [payment.id, payment.returnUrl, JSON.stringify(payment.request), payment.providerDetails === null ? null : JSON.stringify(payment.providerDetails)],
    );
  }
}

/** browser-payment's records of a payer's personal data, one order at a time, each in a database transaction of its own. */
export class BrowserPaymentPayerDataRepository {
  private constructor(private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): BrowserPaymentPayerDataRepository {
    return new BrowserPaymentPayerDataRepository(dataSource);
  }

  transaction<T>(work: (records: BrowserPaymentPayerDataRecords) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, (manager) => work(new BrowserPaymentPayerDataRecords(manager)));
  }

  /**
   * The next payments after `after` (from the first when null) whose journey is over, whose order
   * the retention has not stripped since their last step, and whose last step is before
   * `idleBefore`, by initiation, at most `limit`: a range of payments_to_strip_idx up to
   * `idleBefore` (a payment idle since then was initiated before it), each row's `updated_at`
   * checked as it is read. Read without a lock: the erasure locks the order's payments and checks
   * again.
   */
  unstrippedPayments(after: UnstrippedPayment | null, idleBefore: Date, limit: number): Promise<UnstrippedPayment[]> {
    const from = after ?? { timeInitiated: '-infinity', id: '00000000-0000-0000-0000-000000000000' };
    return this.dataSource.query(
      `SELECT time_initiated::text AS "timeInitiated", id, merchant_id AS "merchantId", order_id AS "orderId"
         FROM browser_payment.payments
        WHERE ${TO_STRIP_PREDICATE} AND time_initiated < $3 AND updated_at < $3
          AND (time_initiated, id) > ($1::timestamptz, $2::uuid)
        ORDER BY time_initiated, id
        LIMIT $4`,
      [from.timeInitiated, from.id, idleBefore, limit],
    );
  }
}

/**
 * A finished payment the retention has not stripped, by initiation, with the order it belongs to:
 * where a run is in its read of payments_to_strip_idx (`timeInitiated` as Postgres's text,
 * microseconds kept).
 */
export interface UnstrippedPayment {
  timeInitiated: string;
  id: string;
  merchantId: string;
  orderId: string;
}
