import type { JsonObject } from '@gateway/contracts';
import { inTransaction } from '@gateway/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { CLAIM_LOCK_CLASS } from './notification-outbox.repository';

/** A stored operation response, by its key. */
export interface StoredBody {
  transactionId: string;
  apiOperation: string;
  body: JsonObject;
}

/** A webhook notification of the order, by its id: what it carries and where it goes. */
export interface OutboxNotification {
  id: string;
  url: string;
  payload: JsonObject;
}

/**
 * What an open card transaction of the order (a reservation, an UNKNOWN outcome) keeps for the
 * notification of its outcome (`transactions.announcement`, ReservedAnnouncement), by its id.
 */
export interface KeptAnnouncement {
  transactionId: string;
  announcement: JsonObject & { url: string };
}

/** An agreement the order's operations named, by its id, with the merchant's free text about it. */
export interface NamedAgreement {
  agreementId: string;
  customData: string;
}

/** The row lock of each way `PayerDataRecords.order` reads the order. */
const ROW_LOCKS = { wait: ' FOR UPDATE', skip: ' FOR UPDATE SKIP LOCKED', none: '' } as const;

/**
 * Where the ledger keeps a payer's personal data for one order (docs/decisions/payer-personal-data.md):
 * the order's details and notification URL, every stored operation response, the payloads and
 * URLs of the order's webhook notifications whatever their status (amendment 2026-11-27: PENDING
 * and FAILED may still be sent, DELIVERED ones are kept until the webhook purge), and the
 * `custom_data` of the agreements the order's operations named.
 *
 * Used inside one database transaction that holds the order row (`lockOrder`), as every ledger
 * write does: a record racing the erasure either committed before it (its response is read and
 * stripped here) or waits for the row and then decides on the order as the erasure left it.
 * Notifications are also held against the dispatcher (`holdNotifications`), never waited for.
 */
export class PayerDataRecords {
  constructor(private readonly manager: EntityManager) {}

  /**
   * The order's details and notification URL, its row locked until commit. `lock`: `wait` for a
   * transaction holding the row (an operation being recorded) to end; `skip` it instead, the
   * order then read as not there (the retention's: an order held is in use, or being stripped by
   * another replica); `none`, read only, for a dry run, which then never waits for a live
   * operation. Null when the merchant has no such order.
   */
  async order(merchantId: string, orderId: string, lock: 'wait' | 'skip' | 'none'): Promise<{ details: JsonObject; notificationUrl: string | null; updatedAt: Date } | null> {
    const rows: { details: JsonObject; notificationUrl: string | null; updatedAt: Date }[] = await this.manager.query(
      `SELECT details, notification_url AS "notificationUrl", updated_at AS "updatedAt" FROM order_transaction.orders
        WHERE merchant_id = $1 AND order_id = $2${ROW_LOCKS[lock]}`,
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

  /**
   * The announcements the order's open card transactions keep (docs/decisions/unknown-resolution.md,
   * amendment 2026-11-27): the notification URL a later resolution announces the outcome to, as
   * the operation's request or the order named it then. By the transactions' primary key.
   */
  announcements(merchantId: string, orderId: string): Promise<KeptAnnouncement[]> {
    return this.manager.query(
      `SELECT transaction_id AS "transactionId", announcement FROM order_transaction.transactions
        WHERE merchant_id = $1 AND order_id = $2 AND announcement IS NOT NULL
        ORDER BY transaction_id`,
      [merchantId, orderId],
    );
  }

  /**
   * Every notification of the order the outbox holds, in one statement (one snapshot: a row the
   * dispatcher moves from PENDING to DELIVERED meanwhile is read once), one branch per status,
   * each written as its partial index's condition so the index serves it: PENDING by the
   * dispatcher's due index, FAILED by the merchant's failed index, DELIVERED by the order's
   * (IndexDeliveredNotificationsByOrder1765400000000). In id order, the order they are held in.
   */
  notifications(merchantId: string, orderId: string): Promise<OutboxNotification[]> {
    const ofStatus = (status: string) =>
      `SELECT id, url, payload FROM order_transaction.notification_outbox
        WHERE status = '${status}' AND merchant_id = $1 AND order_id = $2`;
    return this.manager.query(`${ofStatus('PENDING')} UNION ALL ${ofStatus('FAILED')} UNION ALL ${ofStatus('DELIVERED')} ORDER BY id`, [merchantId, orderId]);
  }

  /**
   * Holds the notifications against the dispatcher until commit, unless one is being delivered:
   * the claim lock a dispatcher worker takes on a notification it delivers
   * (`pg_try_advisory_lock(CLAIM_LOCK_CLASS, hashtext(id))`), tried here for the transaction.
   * While the erasure holds them no worker claims them (a claim only tries the lock), and the
   * next claim, after the commit, reads the erased payload and URL: no delivery starts with the
   * payer's data once the erasure has begun writing. False when a worker holds one (a delivery in
   * flight, up to WEBHOOK_TIMEOUT_MS): not waited for here, with the order's row held (ErasePayerData
   * ends the transaction, having written nothing, and tries again). Tried before any row of the
   * outbox is written, so a worker writing its outcome waits for nothing of the erasure.
   */
  async holdNotifications(ids: string[]): Promise<boolean> {
    if (ids.length === 0) {
      return true;
    }
    const [{ held }]: { held: boolean }[] = await this.manager.query(
      `SELECT bool_and(pg_try_advisory_xact_lock(${CLAIM_LOCK_CLASS}, k)) AS held
         FROM (SELECT DISTINCT hashtext(id::text) AS k FROM unnest($1::uuid[]) AS n(id)) keys`,
      [ids],
    );
    return held;
  }

  /**
   * The agreements of the merchant among `agreementIds` that still hold custom data, locked
   * until commit (`lock` false: read only), in id order. An agreement row is otherwise never
   * written after its insert; a payment reading it meanwhile (without a lock) reads it as it
   * was before or after the erasure, whole either way. A ledger record carrying the text it read
   * reads it again `FOR SHARE`, after its own order's row (lockedAgreementText): it waits for this
   * lock, then finds the text gone and is made without it.
   */
  agreements(merchantId: string, agreementIds: string[], lock: boolean): Promise<NamedAgreement[]> {
    if (agreementIds.length === 0) {
      return Promise.resolve([]);
    }
    return this.manager.query(
      `SELECT agreement_id AS "agreementId", custom_data AS "customData" FROM order_transaction.agreements
        WHERE merchant_id = $1 AND agreement_id = ANY($2::text[]) AND custom_data IS NOT NULL
        ORDER BY agreement_id${lock ? ' FOR UPDATE' : ''}`,
      [merchantId, agreementIds],
    );
  }

  /**
   * The order's details and notification URL. Written whenever anything of the order is, even
   * unchanged: every ledger write to an order's responses also writes its order row, so a
   * record that read the order before (docs/decisions/ledger-records-on-row-version.md) finds
   * its version moved and decides again on the row as written here. `updated_at` stays: it is
   * the order's last operation.
   */
  async writeOrder(merchantId: string, orderId: string, details: JsonObject, notificationUrl: string | null): Promise<void> {
    await this.manager.query(
      `UPDATE order_transaction.orders SET details = $3::jsonb, notification_url = $4 WHERE merchant_id = $1 AND order_id = $2`,
      [merchantId, orderId, JSON.stringify(details), notificationUrl],
    );
  }

  /** A stored response's body; its request hash stays, so a replay of the request still matches it. */
  async writeResponse(merchantId: string, orderId: string, response: StoredBody): Promise<void> {
    await this.manager.query(
      `UPDATE order_transaction.operation_responses SET body = $5::jsonb
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3 AND api_operation = $4`,
      [merchantId, orderId, response.transactionId, response.apiOperation, JSON.stringify(response.body)],
    );
  }

  /** The announcement only: the transaction's money, status and times are the ledger's record. */
  async writeAnnouncement(merchantId: string, orderId: string, kept: KeptAnnouncement): Promise<void> {
    await this.manager.query(
      `UPDATE order_transaction.transactions SET announcement = $4::jsonb WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3`,
      [merchantId, orderId, kept.transactionId, JSON.stringify(kept.announcement)],
    );
  }

  /** Payload and URL only: the dispatcher's columns (status, attempts, times, result) are its own. */
  async writeNotification(notification: OutboxNotification): Promise<void> {
    await this.manager.query(`UPDATE order_transaction.notification_outbox SET payload = $2::jsonb, url = $3 WHERE id = $1`, [
      notification.id,
      JSON.stringify(notification.payload),
      notification.url,
    ]);
  }

  /**
   * The order as stripped by the payer personal-data retention: it leaves orders_to_strip_idx,
   * which the retention reads, until its next operation's write sets the marker back to NULL.
   */
  async markStripped(merchantId: string, orderId: string): Promise<void> {
    await this.manager.query(`UPDATE order_transaction.orders SET personal_data_stripped_at = now() WHERE merchant_id = $1 AND order_id = $2`, [
      merchantId,
      orderId,
    ]);
  }

  /** The agreements' custom data; their terms, ids and where they were established stay. */
  async eraseAgreementData(merchantId: string, agreementIds: string[]): Promise<void> {
    await this.manager.query(`UPDATE order_transaction.agreements SET custom_data = NULL WHERE merchant_id = $1 AND agreement_id = ANY($2::text[])`, [
      merchantId,
      agreementIds,
    ]);
  }
}

/**
 * An order the payer personal-data retention has not stripped, by creation: where a run is in
 * its read of orders_to_strip_idx. `createdAt` is the text Postgres gives (microseconds: a JS Date
 * would drop them, and the next page would then begin before the order, or after one not read).
 */
export interface UnstrippedOrder {
  createdAt: string;
  merchantId: string;
  orderId: string;
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

  /**
   * The next orders after `after` (from the first when null) that the retention has not stripped
   * and whose last operation is before `idleBefore`, by creation, at most `limit`: a range of
   * orders_to_strip_idx up to `idleBefore` (an order idle since then was created before it), each
   * row's `updated_at` checked as it is read. Read without a lock: the erasure locks each order
   * and checks again. Orders created that long ago but still in use are read and passed by every
   * run; they are the few orders with operations that far apart.
   */
  unstrippedOrders(after: UnstrippedOrder | null, idleBefore: Date, limit: number): Promise<UnstrippedOrder[]> {
    const from = after ?? { createdAt: '-infinity', merchantId: '', orderId: '' };
    return this.dataSource.query(
      `SELECT created_at::text AS "createdAt", merchant_id AS "merchantId", order_id AS "orderId"
         FROM order_transaction.orders
        WHERE personal_data_stripped_at IS NULL AND created_at < $4 AND updated_at < $4
          AND (created_at, merchant_id, order_id) > ($1::timestamptz, $2, $3)
        ORDER BY created_at, merchant_id, order_id
        LIMIT $5`,
      [from.createdAt, from.merchantId, from.orderId, idleBefore, limit],
    );
  }
}
