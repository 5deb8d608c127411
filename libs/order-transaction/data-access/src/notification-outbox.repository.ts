import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JsonObject, MerchantMode } from '@gateway/contracts';
import { DataSource, EntityManager } from 'typeorm';
import type { NotificationStatus } from './notification.entity';

/** A notification as the ledger writes it. */
export interface NewNotification {
  id: string;
  merchantId: string;
  merchantMode: MerchantMode;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  url: string;
  payload: JsonObject;
  sealedSecret: string;
  sealedPreviousSecret: string | null;
  at: Date;
}

/** A due notification a dispatcher holds (row-locked) while it delivers it. */
export interface ClaimedNotification {
  id: string;
  merchantId: string;
  merchantMode: MerchantMode;
  orderId: string;
  transactionId: string;
  url: string;
  payload: JsonObject;
  sealedSecret: string;
  sealedPreviousSecret: string | null;
  attempts: number;
  windowStartedAt: Date;
  createdAt: Date;
}

/** What an attempt changed. */
export interface NotificationOutcome {
  id: string;
  status: NotificationStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastAttemptAt: Date;
  lastResult: string;
  deliveredAt: Date | null;
}

export interface NotificationSummary {
  id: string;
  merchantId: string;
  orderId: string;
  transactionId: string;
  url: string;
  status: NotificationStatus;
  attempts: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  lastResult: string | null;
}

const SUMMARY_COLUMNS = `id, merchant_id AS "merchantId", order_id AS "orderId", transaction_id AS "transactionId",
  url, status, attempts, created_at AS "createdAt", last_attempt_at AS "lastAttemptAt", last_result AS "lastResult"`;

/**
 * The webhook outbox's SQL. Claims lock rows with FOR UPDATE SKIP LOCKED and keep them locked
 * until the attempts' outcomes are written: a row is in exactly one dispatcher's hands while it
 * is being delivered, others skip it, and a dispatcher that dies mid-batch loses its database
 * session, which releases the rows for the next claim, untouched.
 */
@Injectable()
export class NotificationOutbox {
  constructor(@InjectDataSource('order_transaction') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): NotificationOutbox {
    return new NotificationOutbox(dataSource);
  }

  /** Inside the ledger's record transaction (its manager), so the row commits with the change. */
  async add(manager: EntityManager, n: NewNotification): Promise<void> {
    await manager.query(
      `INSERT INTO order_transaction.notification_outbox (id, merchant_id, merchant_mode, order_id, transaction_id,
         api_operation, url, payload, sealed_secret, sealed_previous_secret, status, attempts, next_attempt_at,
         window_started_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, 'PENDING', 0, $11, $11, $11)`,
      [
        n.id,
        n.merchantId,
        n.merchantMode,
        n.orderId,
        n.transactionId,
        n.apiOperation,
        n.url,
        JSON.stringify(n.payload),
        n.sealedSecret,
        n.sealedPreviousSecret,
        n.at,
      ],
    );
  }

  /**
   * Claims up to `limit` due notifications and holds them while `deliver` runs, then writes the
   * outcomes it returns, in one database transaction. Returns how many were claimed.
   */
  claimDue(limit: number, now: Date, deliver: (claimed: ClaimedNotification[]) => Promise<NotificationOutcome[]>): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const claimed: ClaimedNotification[] = await manager.query(
        `SELECT id, merchant_id AS "merchantId", merchant_mode AS "merchantMode", order_id AS "orderId",
                transaction_id AS "transactionId", url, payload, sealed_secret AS "sealedSecret",
                sealed_previous_secret AS "sealedPreviousSecret", attempts, window_started_at AS "windowStartedAt",
                created_at AS "createdAt"
           FROM order_transaction.notification_outbox
          WHERE status = 'PENDING' AND next_attempt_at <= $1
          ORDER BY next_attempt_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED`,
        [now, limit],
      );
      if (claimed.length === 0) {
        return 0;
      }
      await this.writeOutcomes(manager, await deliver(claimed));
      return claimed.length;
    });
  }

  private async writeOutcomes(manager: EntityManager, outcomes: NotificationOutcome[]): Promise<void> {
    if (outcomes.length === 0) {
      return;
    }
    await manager.query(
      `UPDATE order_transaction.notification_outbox n
          SET status = o.status, attempts = o.attempts, next_attempt_at = o.next_attempt_at,
              last_attempt_at = o.last_attempt_at, last_result = o.last_result, delivered_at = o.delivered_at
         FROM unnest($1::uuid[], $2::varchar[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::varchar[], $7::timestamptz[])
           AS o(id, status, attempts, next_attempt_at, last_attempt_at, last_result, delivered_at)
        WHERE n.id = o.id`,
      [
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.attempts),
        outcomes.map((o) => o.nextAttemptAt),
        outcomes.map((o) => o.lastAttemptAt),
        outcomes.map((o) => o.lastResult.slice(0, 200)),
        outcomes.map((o) => o.deliveredAt),
      ],
    );
  }

  /** Notifications not delivered yet (the backlog dispatchers scale on). */
  async depth(): Promise<number> {
    const [row]: { depth: string }[] = await this.dataSource.query(
      `SELECT count(*) AS depth FROM order_transaction.notification_outbox WHERE status = 'PENDING'`,
    );
    return Number(row.depth);
  }

  async find(id: string): Promise<NotificationSummary | null> {
    const rows: NotificationSummary[] = await this.dataSource.query(
      `SELECT ${SUMMARY_COLUMNS} FROM order_transaction.notification_outbox WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Failed notifications, newest first, of one merchant or all. */
  listFailed(filter: { merchantId?: string; limit: number }): Promise<NotificationSummary[]> {
    return this.dataSource.query(
      `SELECT ${SUMMARY_COLUMNS} FROM order_transaction.notification_outbox
        WHERE status = 'FAILED' AND ($1::varchar IS NULL OR merchant_id = $1)
        ORDER BY created_at DESC
        LIMIT $2`,
      [filter.merchantId ?? null, filter.limit],
    );
  }

  /**
   * Queues failed notifications again (by id, or every failed one of a merchant) with a fresh
   * retry window; answers the ids re-queued. Pending or delivered ones are left alone.
   */
  async resend(selection: { ids: string[] } | { merchantId: string }, now: Date): Promise<string[]> {
    const byIds = 'ids' in selection;
    // In a CTE: TypeORM answers a bare UPDATE with [rows, count] rather than rows.
    const rows: { id: string }[] = await this.dataSource.query(
      `WITH requeued AS (
         UPDATE order_transaction.notification_outbox
            SET status = 'PENDING', attempts = 0, next_attempt_at = $1, window_started_at = $1
          WHERE status = 'FAILED' AND ${byIds ? 'id = ANY($2::uuid[])' : 'merchant_id = $2'}
          RETURNING id
       )
       SELECT id FROM requeued ORDER BY id`,
      [now, byIds ? selection.ids : selection.merchantId],
    );
    return rows.map((r) => r.id);
  }

  /** Deletes delivered notifications older than `before`, at most `limit` at a time. */
  async purgeDelivered(before: Date, limit: number): Promise<number> {
    const [row]: { purged: string }[] = await this.dataSource.query(
      `WITH purged AS (
         DELETE FROM order_transaction.notification_outbox
          WHERE id IN (SELECT id FROM order_transaction.notification_outbox
                        WHERE status = 'DELIVERED' AND delivered_at < $1 LIMIT $2)
          RETURNING 1
       )
       SELECT count(*) AS purged FROM purged`,
      [before, limit],
    );
    return Number(row.purged);
  }
}
