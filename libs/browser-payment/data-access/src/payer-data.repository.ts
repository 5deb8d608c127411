import type { JsonObject } from '@gateway/contracts';
import { inTransaction } from '@gateway/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { JOURNEY_OVER_PREDICATE, type PaymentResult } from './payment-columns';

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

  /** Where the retention stopped: the last payment it has done (personal_data_retention's one row). */
  async retentionCursor(): Promise<IdlePayment> {
    const [cursor]: IdlePayment[] = await this.dataSource.query(
      `SELECT retained_to::text AS "updatedAt", payment_id AS id, '' AS "merchantId", '' AS "orderId" FROM browser_payment.personal_data_retention`,
    );
    return cursor;
  }

  /**
   * The next payments after `after` whose journey is over and whose last step is before
   * `idleSince`, oldest first, at most `limit`: a range of payments_last_step_idx, read without a
   * lock (the erasure then locks the order's payments). A payment still PENDING is not among them
   * and comes once its journey ends (its last step then moves `updated_at` ahead of the cursor).
   */
  idlePayments(after: IdlePayment, idleSince: Date, limit: number): Promise<IdlePayment[]> {
    return this.dataSource.query(
      `SELECT updated_at::text AS "updatedAt", id, merchant_id AS "merchantId", order_id AS "orderId"
         FROM browser_payment.payments
        WHERE ${JOURNEY_OVER_PREDICATE} AND (updated_at, id) > ($1::timestamptz, $2::uuid) AND updated_at < $3
        ORDER BY updated_at, id
        LIMIT $4`,
      [after.updatedAt, after.id, idleSince, limit],
    );
  }

  /** The cursor past `done`, never back: two replicas' runs keep the later of their moves. */
  async retainedTo(done: IdlePayment): Promise<void> {
    await this.dataSource.query(
      `UPDATE browser_payment.personal_data_retention SET retained_to = $1::timestamptz, payment_id = $2::uuid
        WHERE (retained_to, payment_id) < ($1::timestamptz, $2::uuid)`,
      [done.updatedAt, done.id],
    );
  }
}

/**
 * A payment by its last step, as the retention reads them and its cursor keeps the last one done
 * (`updatedAt` as Postgres's text, microseconds kept), with the order it belongs to.
 */
export interface IdlePayment {
  updatedAt: string;
  id: string;
  merchantId: string;
  orderId: string;
}
