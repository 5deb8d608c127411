import type { JsonObject } from '@gateway/contracts';
import { inTransaction } from '@gateway/platform';
import type { DataSource, EntityManager } from 'typeorm';

/** A stored operation response, by its key. */
export interface StoredBody {
  transactionId: string;
  apiOperation: string;
  body: JsonObject;
}

/** A webhook notification the outbox may still send, by its id. */
export interface UnsentNotification {
  id: string;
  payload: JsonObject;
}

/**
 * Where the ledger keeps a payer's personal data for one order (docs/decisions/payer-personal-data.md):
 * the order's details, every stored operation response, and the webhook payloads the outbox may
 * still send (PENDING, or FAILED, which an operator may send again). DELIVERED payloads are left
 * to the webhook purge (WEBHOOK_RETENTION_DAYS): the outbox has no index by order, and they are
 * never sent again.
 *
 * Used inside one database transaction that holds the order row (`lockOrder`), as every ledger
 * write does: a record racing the erasure either committed before it (its response is read and
 * stripped here) or waits for the row and then decides on the order as the erasure left it.
 */
export class PayerDataRecords {
  constructor(private readonly manager: EntityManager) {}

  /**
   * The order's details, its row locked until commit (`lock` false: read only, for a dry run,
   * which then never waits for a live operation). Null when the merchant has no such order.
   */
  async order(merchantId: string, orderId: string, lock: boolean): Promise<{ details: JsonObject } | null> {
    const rows: { details: JsonObject }[] = await this.manager.query(
      `SELECT details FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [merchantId, orderId],
    );
    return rows[0] ?? null;
  }

  responses(merchantId: string, orderId: string): Promise<StoredBody[]> {
    return this.manager.query(
      `SELECT transaction_id AS "transactionId", api_operation AS "apiOperation", body
         FROM order_transaction.operation_responses
        WHERE merchant_id = $1 AND order_id = $2
        ORDER BY sequence`,
      [merchantId, orderId],
    );
  }

  /** One statement per status, each written as its partial index's condition so the index serves it. */
  unsentNotifications(merchantId: string, orderId: string): Promise<UnsentNotification[]> {
    const ofStatus = (status: string) =>
      `SELECT id, payload FROM order_transaction.notification_outbox
        WHERE status = '${status}' AND merchant_id = $1 AND order_id = $2`;
    return this.manager.query(`${ofStatus('PENDING')} UNION ALL ${ofStatus('FAILED')}`, [merchantId, orderId]);
  }

  /**
   * The order's details. Written whenever anything of the order is, even unchanged: every ledger
   * write to an order's responses also writes its order row, so a record that read the order
   * before (docs/decisions/ledger-records-on-row-version.md) finds its version moved and decides
   * again on the row as written here. `updated_at` stays: it is the order's last operation.
   */
  async writeDetails(merchantId: string, orderId: string, details: JsonObject): Promise<void> {
    await this.manager.query(`UPDATE order_transaction.orders SET details = $3::jsonb WHERE merchant_id = $1 AND order_id = $2`, [
      merchantId,
      orderId,
      JSON.stringify(details),
    ]);
  }

  /** A stored response's body; its request hash stays, so a replay of the request still matches it. */
  async writeResponse(merchantId: string, orderId: string, response: StoredBody): Promise<void> {
    await this.manager.query(
      `UPDATE order_transaction.operation_responses SET body = $5::jsonb
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3 AND api_operation = $4`,
      [merchantId, orderId, response.transactionId, response.apiOperation, JSON.stringify(response.body)],
    );
  }

  async writeNotification(notification: UnsentNotification): Promise<void> {
    await this.manager.query(`UPDATE order_transaction.notification_outbox SET payload = $2::jsonb WHERE id = $1`, [
      notification.id,
      JSON.stringify(notification.payload),
    ]);
  }
}

/** The ledger's records of a payer's personal data, one order at a time, each in a database transaction of its own. */
export class PayerDataRepository {
  private constructor(private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): PayerDataRepository {
    return new PayerDataRepository(dataSource);
  }

  transaction<T>(work: (records: PayerDataRecords) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, (manager) => work(new PayerDataRecords(manager)));
  }
}
