import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { MerchantMode } from '@gateway/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { CARD_RESERVATION_SQL } from './card-reservations';

/**
 * Summarises the ranges of the BRIN on transactions.created_at (IndexTransactionCreation1765200000000)
 * that no summary covers yet, the last one being filled included, before the sweep reads its
 * window through it: a range without a summary is read by every bitmap scan of the index,
 * whatever its window, and only autovacuum summarises them otherwise (`autosummarize`), late or
 * never where it lags or is off (docs/decisions/unknown-resolution.md, amendment 2026-11-27 "the
 * sweep summarises the BRIN it reads"). Each step summarises what was inserted since the one
 * before: a minute of the ledger, a few ranges.
 *
 * It takes SHARE UPDATE EXCLUSIVE on the table and the index, held to the step's commit: no
 * write waits for it (INSERT and UPDATE take ROW EXCLUSIVE); VACUUM, ANALYZE and a concurrent
 * index build do, for the step's milliseconds. When one of those holds it (an autovacuum of the
 * table, which summarises too), the step does not wait: after `lock_timeout` 100 ms, below the
 * default deadlock_timeout (1 s) after which a waiter would cancel an autovacuum, it gives up the
 * summary and reads its window as before. In a block of its own (a subtransaction), so that
 * giving up rolls back neither the step nor its `lock_timeout`, which is restored. It needs
 * the table's ownership (PG 17 also takes MAINTAIN, which the step does not look for): the
 * service's role owns its schema's tables, as it runs their migrations (provision-roles.ts). A
 * role that does not (a member of the owner's role does) skips it, and the step says so
 * (`summarises`) rather than failing on 42501.
 *
 * Best effort (amendment 2026-11-27): the step reads its window correctly without it, only more
 * pages. Any other failure of the summary (the index renamed or dropped, a privilege taken away,
 * the index no longer a BRIN) is rolled back to a savepoint around the block (`summaryFailure`,
 * which AbandonedReservations logs once per process) and the step sweeps on, rather than failing
 * every step from then on.
 */
const SUMMARISE_CREATION_INDEX_SQL = `DO $$
DECLARE
  previous text := current_setting('lock_timeout');
BEGIN
  PERFORM set_config('lock_timeout', '100ms', true);
  PERFORM brin_summarize_new_values('order_transaction.transactions_created_at_brin_idx'::regclass);
  PERFORM set_config('lock_timeout', previous, true);
EXCEPTION WHEN lock_not_available THEN
  NULL;
END $$`;

/**
 * SUMMARISE_CREATION_INDEX_SQL in the step's transaction, under a savepoint: a failure of the
 * summary rolls back to it (its `lock_timeout` with it) and is answered, not thrown, so the step
 * goes on. A failure of the savepoint's own statements (the connection lost) still throws: the
 * step could not go on anyway.
 */
async function summariseCreationIndex(manager: EntityManager): Promise<string | null> {
  await manager.query('SAVEPOINT summarise_creation_index');
  try {
    await manager.query(SUMMARISE_CREATION_INDEX_SQL);
  } catch (err) {
    await manager.query('ROLLBACK TO SAVEPOINT summarise_creation_index');
    return err instanceof Error ? err.message : String(err);
  }
  await manager.query('RELEASE SAVEPOINT summarise_creation_index');
  return null;
}

/** A transaction the gateway is to ask the acquirer about. */
export interface UnknownInquiryKey {
  merchantId: string;
  orderId: string;
  transactionId: string;
}

/** What one step of the sweep did (UnknownInquiries.sweepAbandoned). */
export interface ReservationSweep {
  /** The reservations it queued (a read may have queued others of its window first). */
  queued: (UnknownInquiryKey & { recordedAt: Date })[];
  /** The end of its window, where the cursor stands now. */
  sweptTo: Date;
  /** The window was cut at its longest: more of the ledger is due for the next step. */
  behind: boolean;
  /**
   * Whether the step could summarise the BRIN it reads (SUMMARISE_CREATION_INDEX_SQL): false when
   * its role does not own the table, and every step then reads what no summary covers yet.
   */
  summarises: boolean;
  /**
   * Why the step's summary failed, other than on a lock it does not wait for (the index renamed or
   * dropped, a privilege taken away): the database's message. Null when it summarised, gave up on
   * the lock, or did not try (`summarises` false). The step swept its window all the same.
   */
  summaryFailure: string | null;
}

/** A queued inquiry as a claim hands it out. */
export interface ClaimedInquiry extends UnknownInquiryKey {
  /** Null when the sweep queued it: routed by the acquirer the transaction's stored body names. */
  merchantMode: MerchantMode | null;
  recordedAt: Date;
  /** Counting this one. */
  attempts: number;
  /** When it was due before this claim leased it: a release makes it due then again. */
  dueAt: Date;
}

const KEY = 'merchant_id = $1 AND order_id = $2 AND transaction_id = $3';

/**
 * The queue of UNKNOWN card transactions to ask the acquirer about (UnknownInquiryEntity).
 * Rows are written and deleted inside the ledger's records (their manager), claimed by the
 * reconcilers of any number of replicas.
 */
@Injectable()
export class UnknownInquiries {
  constructor(@InjectDataSource('order_transaction') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): UnknownInquiries {
    return new UnknownInquiries(dataSource);
  }

  /** Inside the record that leaves the transaction UNKNOWN, so the row commits with it. Answers whether it was queued now (false: already queued). */
  async add(manager: EntityManager, inquiry: UnknownInquiryKey & { merchantMode: MerchantMode; recordedAt: Date }): Promise<boolean> {
    const added: unknown[] = await manager.query(
      `INSERT INTO order_transaction.unknown_inquiries (merchant_id, order_id, transaction_id, merchant_mode, recorded_at, next_attempt_at, attempts)
       VALUES ($1, $2, $3, $4, $5, $5, 0)
       ON CONFLICT (merchant_id, order_id, transaction_id) DO NOTHING
       RETURNING 1`,
      [inquiry.merchantId, inquiry.orderId, inquiry.transactionId, inquiry.merchantMode, inquiry.recordedAt],
    );
    return added.length > 0;
  }

  /**
   * Card reservations found abandoned PENDING by a read that met them (AbandonedReservations):
   * queued on their own, outside any record, due at once, in one statement whatever their
   * number. `recordedAt` is each reservation's last write. One queued already stays as it is
   * (its attempts and backoff kept). Answers the ids of the transactions queued now.
   */
  async addAbandoned(merchant: { id: string; mode: MerchantMode }, orderId: string, reservations: { transactionId: string; recordedAt: Date }[]): Promise<string[]> {
    const added: { transactionId: string }[] = await this.dataSource.query(
      `INSERT INTO order_transaction.unknown_inquiries (merchant_id, order_id, transaction_id, merchant_mode, recorded_at, next_attempt_at, attempts)
       SELECT $1, $2, r.transaction_id, $3, r.recorded_at, r.recorded_at, 0
         FROM unnest($4::varchar[], $5::timestamptz[]) AS r(transaction_id, recorded_at)
       ON CONFLICT (merchant_id, order_id, transaction_id) DO NOTHING
       RETURNING transaction_id AS "transactionId"`,
      [merchant.id, orderId, merchant.mode, reservations.map((r) => r.transactionId), reservations.map((r) => r.recordedAt)],
    );
    return added.map((row) => row.transactionId);
  }

  /**
   * One step of the sweep for card reservations abandoned PENDING that no read met: in one
   * database transaction, takes the cursor (reservation_sweep) FOR UPDATE SKIP LOCKED, queues the
   * card reservations (CARD_RESERVATION_SQL) created in the window after it that are still
   * PENDING and not queued yet, due at once, without a merchant mode (no request brought one),
   * and moves the cursor to the window's end. Null, and nothing done, while another replica's
   * sweep holds the cursor: one sweeps at a time, the others skip.
   *
   * The window ends `afterMs` (ABANDONED_RESERVATION_AFTER_MS) before the database's now(): a
   * younger reservation may still be completed, and is left to the window that reaches it. It
   * spans `windowMs` at most, so a cursor left behind (an upgrade, the sweep turned off) is
   * caught up in bounded steps, `behind` saying there is more. The window is read through the
   * BRIN on created_at (a bitmap scan of the pages created in it), whose new ranges the step
   * summarises first (SUMMARISE_CREATION_INDEX_SQL): a reservation's row is
   * created once, by its INSERT, and never written PENDING again (RecordOperation refuses an
   * UPDATE that would), so its creation time is the time it was reserved.
   */
  async sweepAbandoned(request: { afterMs: number; windowMs: number }): Promise<ReservationSweep | null> {
    return this.dataSource.transaction(async (manager) => {
      // As text: a JS Date would drop the microseconds of a timestamptz, and move the cursor back.
      const [cursor]: { from: string; to: string; sweptTo: Date; behind: boolean; summarises: boolean }[] = await manager.query(
        `SELECT swept_to::text AS "from", window_end::text AS "to", window_end AS "sweptTo", window_end < due AS behind,
                pg_has_role((SELECT relowner FROM pg_class WHERE oid = 'order_transaction.transactions'::regclass), 'USAGE') AS summarises
           FROM order_transaction.reservation_sweep,
                LATERAL (SELECT now() - $1::float8 * interval '1 millisecond' AS due) d,
                LATERAL (SELECT GREATEST(swept_to, LEAST(due, swept_to + $2::float8 * interval '1 millisecond')) AS window_end) w
            FOR UPDATE OF reservation_sweep SKIP LOCKED`,
        [request.afterMs, request.windowMs],
      );
      if (!cursor) {
        return null;
      }
      const summaryFailure = cursor.summarises ? await summariseCreationIndex(manager) : null;
      const queued: (UnknownInquiryKey & { recordedAt: Date })[] = await manager.query(
        `INSERT INTO order_transaction.unknown_inquiries (merchant_id, order_id, transaction_id, merchant_mode, recorded_at, next_attempt_at, attempts)
         SELECT t.merchant_id, t.order_id, t.transaction_id, NULL, t.updated_at, t.updated_at, 0
           FROM order_transaction.transactions t
          WHERE t.created_at > $1::timestamptz AND t.created_at <= $2::timestamptz AND ${CARD_RESERVATION_SQL}
            AND NOT EXISTS (SELECT 1 FROM order_transaction.unknown_inquiries q
                             WHERE q.merchant_id = t.merchant_id AND q.order_id = t.order_id AND q.transaction_id = t.transaction_id)
         ON CONFLICT (merchant_id, order_id, transaction_id) DO NOTHING
         RETURNING merchant_id AS "merchantId", order_id AS "orderId", transaction_id AS "transactionId", recorded_at AS "recordedAt"`,
        [cursor.from, cursor.to],
      );
      await manager.query('UPDATE order_transaction.reservation_sweep SET swept_to = $1::timestamptz', [cursor.to]);
      return { queued, sweptTo: cursor.sweptTo, behind: cursor.behind, summarises: cursor.summarises, summaryFailure };
    });
  }

  /** Inside the record that resolves the transaction (or on its own, once it is found resolved). */
  async remove(key: UnknownInquiryKey, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(`DELETE FROM order_transaction.unknown_inquiries WHERE ${KEY}`, [key.merchantId, key.orderId, key.transactionId]);
  }

  /**
   * Claims up to `limit` inquiries due at `now` whose UNKNOWN outcome was recorded before
   * `recordedBefore`, oldest due first, and leases them until `leaseUntil`: one statement,
   * whose row locks (SKIP LOCKED) keep two replicas' claims apart, and whose lease keeps the
   * rows from the next claims while this one asks. A reconciler that dies mid-inquiry leaves
   * its rows to be claimed again once the lease runs out.
   */
  async claim(request: { now: Date; recordedBefore: Date; limit: number; leaseUntil: Date }): Promise<ClaimedInquiry[]> {
    // The UPDATE in a CTE: TypeORM answers a bare UPDATE with [rows, count] rather than rows.
    return this.dataSource.query(
      `WITH due AS (
         SELECT merchant_id, order_id, transaction_id, next_attempt_at FROM order_transaction.unknown_inquiries
          WHERE next_attempt_at <= $1 AND recorded_at <= $2
          ORDER BY next_attempt_at
          LIMIT $3
          FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE order_transaction.unknown_inquiries q
            SET next_attempt_at = $4, attempts = q.attempts + 1
           FROM due
          WHERE q.merchant_id = due.merchant_id AND q.order_id = due.order_id AND q.transaction_id = due.transaction_id
         RETURNING q.merchant_id AS "merchantId", q.order_id AS "orderId", q.transaction_id AS "transactionId",
                   q.merchant_mode AS "merchantMode", q.recorded_at AS "recordedAt", q.attempts, due.next_attempt_at AS "dueAt"
       )
       SELECT * FROM claimed ORDER BY "recordedAt"`,
      [request.now, request.recordedBefore, request.limit, request.leaseUntil],
    );
  }

  /**
   * Gives back claims a round took and did not use (its process stopping), at once rather than
   * when their lease runs out: due as they were before, their attempt not counted. One
   * statement, over the rows that still carry this claim only: its lease, and its attempt count,
   * which every claim raises under the row's lock. A row another replica claimed since (once
   * this lease ran out), or that was resolved, is left as it is. Answers how many it gave back.
   */
  async release(claimed: ClaimedInquiry[], leaseUntil: Date): Promise<number> {
    if (claimed.length === 0) {
      return 0;
    }
    const column = <K extends keyof ClaimedInquiry>(key: K) => claimed.map((inquiry) => inquiry[key]);
    const [, released] = await this.dataSource.query<[unknown, number]>(
      `UPDATE order_transaction.unknown_inquiries q
          SET next_attempt_at = c.due_at, attempts = q.attempts - 1
         FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::integer[], $5::timestamptz[])
              AS c(merchant_id, order_id, transaction_id, attempts, due_at)
        WHERE q.merchant_id = c.merchant_id AND q.order_id = c.order_id AND q.transaction_id = c.transaction_id
          AND q.attempts = c.attempts AND q.next_attempt_at = $6`,
      [column('merchantId'), column('orderId'), column('transactionId'), column('attempts'), column('dueAt'), leaseUntil],
    );
    return released;
  }

  /** An inquiry that learned nothing (the acquirer could not tell, or did not answer): asked again at `at`. */
  async retryAt(key: UnknownInquiryKey, at: Date, lastResult: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE order_transaction.unknown_inquiries SET next_attempt_at = $4, last_result = $5 WHERE ${KEY}`,
      [key.merchantId, key.orderId, key.transactionId, at, lastResult.slice(0, 200)],
    );
  }
}
