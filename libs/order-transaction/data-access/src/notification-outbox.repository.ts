import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JsonObject, MerchantMode } from '@gateway/contracts';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { NotificationStatus } from './notification.entity';
import { RECEIVER_SQL, UNKNOWN_ANNOUNCEMENT_SQL } from './notification-columns';

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

/** A due notification as a claim first sees it: which receiver it goes to. */
export interface DueNotification {
  id: string;
  /**
   * The receiver's scheme and authority (`https://host:port`, lower case, with the URL's user
   * information if it has any: never logged): what per-receiver limits count.
   */
  target: string;
}

/** A due notification a dispatcher holds (under its claim lock) while it delivers it. */
export interface ClaimedNotification {
  id: string;
  merchantId: string;
  merchantMode: MerchantMode;
  orderId: string;
  transactionId: string;
  url: string;
  target: string;
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
 * Class key of the claim locks, `pg_try_advisory_lock(CLAIM_LOCK_CLASS, hashtext(id::text))`.
 * The two-int4 form has a key space of its own (the migration lock uses the bigint form). Two
 * notifications whose ids hash alike merely wait for each other.
 */
export const CLAIM_LOCK_CLASS = 0x6f757462;

/** Due rows a claim looks at per free slot, so it can skip receivers at their limit and still fill its slots. */
const LOOKAHEAD = 4;

/**
 * The oldest due rows a claim reads in due order before it looks receiver by receiver instead
 * (NotificationClaims.dueRows): what the cheap read may read past, at most.
 */
const HEAD_WINDOW = 512;

/** The claim locks some session holds now, as the oids pg_locks shows of hashtext(id). */
const HELD_CLAIMS = `SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = ${CLAIM_LOCK_CLASS} AND objsubid = 2`;

const CLAIMED_COLUMNS = `id, merchant_id AS "merchantId", merchant_mode AS "merchantMode", order_id AS "orderId",
  transaction_id AS "transactionId", url, ${RECEIVER_SQL} AS target, payload, sealed_secret AS "sealedSecret",
  sealed_previous_secret AS "sealedPreviousSecret", attempts, window_started_at AS "windowStartedAt", created_at AS "createdAt"`;

/** What a worker asks a claim for. */
export interface ClaimRequest {
  /** Free delivery slots: at most this many are claimed. */
  limit: number;
  now: Date;
  /** Receivers not to claim for now (at their in-flight limit, or backed off). */
  skipTargets: string[];
  /**
   * Picks, synchronously, at most `wanted` of the due notifications (oldest due first) to claim;
   * what it picks and the claim does not get (held by another dispatcher, or no longer due) is
   * left out of the answer. Asked again with the rest while the claim has free slots left.
   */
  choose(due: DueNotification[], wanted: number): string[];
}

/**
 * One dispatcher worker's claims, held as session-level advisory locks on one pooled connection
 * (decisions/webhook-dispatcher-claims.md, amended 2026-11-25): each notification is locked
 * while its attempt is in flight and unlocked, on its own, once its outcome has committed, so a
 * slow receiver holds only its own notifications. No database transaction stays open while
 * receivers are called. A dispatcher that dies loses its session and with it its locks: the rows
 * are due again, unchanged. The connection goes back to the pool whenever nothing is held.
 *
 * Calls run one at a time (one connection); the locks are counted, and a session whose count
 * may be wrong (a failed statement) is closed rather than reused once nothing is in flight, so
 * a pooled connection never carries a lock.
 */
export class NotificationClaims {
  private runner: QueryRunner | null = null;
  private readonly held = new Set<string>();
  private broken = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    /** HEAD_WINDOW; tests make it small. */
    private readonly headWindow = HEAD_WINDOW,
  ) {}

  /** Notifications this worker holds (claimed, outcome not yet written). */
  get holding(): number {
    return this.held.size;
  }

  /** Claims due notifications (see ClaimRequest); they stay locked until finish(). */
  claim(request: ClaimRequest): Promise<ClaimedNotification[]> {
    return this.serially(async () => {
      if (this.broken && this.held.size > 0) {
        // Draining a session that may hold unknown locks: it claims nothing more.
        return [];
      }
      const runner = await this.session();
      try {
        return await this.claimOn(runner, request);
      } catch (err) {
        this.broken = true;
        throw err;
      } finally {
        await this.releaseIfIdle();
      }
    });
  }

  /**
   * Writes an attempt's outcome, then unlocks the notification. In that order, and as two
   * statements: whoever locks it next must find the outcome committed. The write is fenced on
   * the attempts count the claim saw, so it changes nothing if another dispatcher attempted the
   * notification meanwhile (possible only if this session died under the attempt). Unlocks even
   * if the write fails: the row then stays due, unchanged, and is sent again (at least once).
   */
  finish(outcome: NotificationOutcome, claimedAttempts: number): Promise<void> {
    return this.serially(async () => {
      const runner = this.runner;
      if (!runner || !this.held.has(outcome.id)) {
        throw new Error(`notification ${outcome.id} is not held by this worker`);
      }
      try {
        await runner.query(
          `UPDATE order_transaction.notification_outbox
              SET status = $2, attempts = $3, next_attempt_at = $4, last_attempt_at = $5, last_result = $6, delivered_at = $7
            WHERE id = $1 AND status = 'PENDING' AND attempts = $8`,
          [outcome.id, outcome.status, outcome.attempts, outcome.nextAttemptAt, outcome.lastAttemptAt, outcome.lastResult.slice(0, 200), outcome.deliveredAt, claimedAttempts],
        );
      } finally {
        await this.unlock(runner, [outcome.id]);
        await this.releaseIfIdle();
      }
    });
  }

  /** Gives the connection back (or closes it, if it may hold a lock); call once nothing is in flight. */
  close(): Promise<void> {
    return this.serially(async () => {
      if (this.held.size > 0) {
        this.broken = true;
        this.held.clear();
      }
      await this.releaseIfIdle();
    });
  }

  private async claimOn(runner: QueryRunner, request: ClaimRequest): Promise<ClaimedNotification[]> {
    const due = await this.dueRows(runner, request);
    // Locks are tried on what is chosen, and more is chosen while slots are left: a row may have
    // been taken by another session between the read and the lock.
    const locked: string[] = [];
    try {
      return await this.lockAndRead(runner, request, due, locked);
    } catch (err) {
      // Nothing of this claim reaches a delivery, so nothing of it would ever be finished: what
      // it locked leaves `held`, and the session (broken now) drops every lock once its other
      // deliveries are done (releaseIfIdle), instead of keeping them for good.
      for (const id of locked) {
        this.held.delete(id);
      }
      throw err;
    }
  }

  /**
   * The oldest due rows (up to LOOKAHEAD per free slot) of receivers not skipped whose claim
   * lock no session holds: those in flight anywhere (other workers, other replicas, this one:
   * its locks are re-entrant, it would get them again) are the oldest due and would otherwise
   * fill the window while younger rows wait. The lock's second key is hashtext(id); Postgres
   * shows it as an oid (the same 32 bits, unsigned).
   *
   * Read in due order first, at most `headWindow` rows: cheap, and enough unless the head of the
   * queue is the backlog of receivers this claim skips (a receiver at its in-flight limit with
   * thousands due: every claim would read past all of them). When that window holds too few
   * rows to take, the claim looks receiver by receiver instead, on the receiver index: each
   * receiver with pending rows found by one index probe (a skip scan), the oldest due rows of
   * each it may call by another, so its cost follows the number of receivers, not the backlog.
   */
  private async dueRows(runner: QueryRunner, request: ClaimRequest): Promise<DueNotification[]> {
    const wanted = request.limit * LOOKAHEAD;
    const head: { scanned: number; id: string | null; target: string | null }[] = await runner.query(
      `WITH head AS MATERIALIZED (
         SELECT id, ${RECEIVER_SQL} AS target, next_attempt_at FROM order_transaction.notification_outbox
          WHERE status = 'PENDING' AND next_attempt_at <= $1
          ORDER BY next_attempt_at
          LIMIT $4)
       SELECT scan.scanned, h.id, h.target
         FROM (SELECT count(*)::int AS scanned FROM head) scan
         LEFT JOIN LATERAL (
           SELECT id, target FROM head
            WHERE NOT (target = ANY($2::text[])) AND hashtext(id::text)::oid NOT IN (${HELD_CLAIMS})
            ORDER BY next_attempt_at
            LIMIT $3) h ON true`,
      [request.now, request.skipTargets, wanted, this.headWindow],
    );
    const rows = head.filter((row): row is DueNotification & { scanned: number } => row.id !== null);
    if (rows.length >= wanted || head[0].scanned < this.headWindow) {
      return rows.map(({ id, target }) => ({ id, target }));
    }
    return runner.query(
      `WITH RECURSIVE receivers(target) AS (
         (SELECT ${RECEIVER_SQL} FROM order_transaction.notification_outbox
           WHERE status = 'PENDING' ORDER BY 1 LIMIT 1)
         UNION ALL
         SELECT (SELECT ${RECEIVER_SQL} FROM order_transaction.notification_outbox
                  WHERE status = 'PENDING' AND ${RECEIVER_SQL} > r.target ORDER BY 1 LIMIT 1)
           FROM receivers r WHERE r.target IS NOT NULL)
       SELECT d.id, r.target
         FROM receivers r
         CROSS JOIN LATERAL (
           SELECT id, next_attempt_at FROM order_transaction.notification_outbox
            WHERE status = 'PENDING' AND ${RECEIVER_SQL} = r.target AND next_attempt_at <= $1
              AND hashtext(id::text)::oid NOT IN (${HELD_CLAIMS})
            ORDER BY next_attempt_at
            LIMIT $3) d
        WHERE r.target IS NOT NULL AND NOT (r.target = ANY($2::text[]))
        ORDER BY d.next_attempt_at
        LIMIT $3`,
      [request.now, request.skipTargets, wanted],
    );
  }

  /** The claim after the read: locks on what is chosen, then the locked rows read again. Fills `locked` as it goes. */
  private async lockAndRead(runner: QueryRunner, request: ClaimRequest, due: DueNotification[], locked: string[]): Promise<ClaimedNotification[]> {
    let candidates = due;
    for (let round = 0; round < LOOKAHEAD && locked.length < request.limit && candidates.length > 0; round++) {
      const chosen = request.choose(candidates, request.limit - locked.length).slice(0, request.limit - locked.length);
      if (chosen.length === 0) {
        break;
      }
      const tried = new Set(chosen);
      candidates = candidates.filter((candidate) => !tried.has(candidate.id));
      // Every chosen id is tried exactly once (no LIMIT above the lock call), so every lock taken
      // is in the answer and counted.
      const got: { id: string }[] = await runner.query(
        `SELECT id FROM unnest($1::uuid[]) AS c(id) WHERE pg_try_advisory_lock(${CLAIM_LOCK_CLASS}, hashtext(id::text))`,
        [chosen],
      );
      for (const { id } of got) {
        this.held.add(id);
        locked.push(id);
      }
    }
    if (locked.length === 0) {
      return [];
    }
    // Read again, in a statement that starts after the locks were taken: a notification another
    // dispatcher finished between the first read and the lock shows its committed outcome here.
    const claimed: ClaimedNotification[] = await runner.query(
      `SELECT ${CLAIMED_COLUMNS} FROM order_transaction.notification_outbox
        WHERE id = ANY($1::uuid[]) AND status = 'PENDING' AND next_attempt_at <= $2
        ORDER BY next_attempt_at`,
      [locked, request.now],
    );
    const stillDue = new Set(claimed.map((c) => c.id));
    const stale = locked.filter((id) => !stillDue.has(id));
    if (stale.length > 0) {
      await this.unlock(runner, stale);
    }
    return claimed;
  }

  private async unlock(runner: QueryRunner, ids: string[]): Promise<void> {
    try {
      const rows: { unlocked: boolean }[] = await runner.query(
        `SELECT pg_advisory_unlock(${CLAIM_LOCK_CLASS}, hashtext(id::text)) AS unlocked FROM unnest($1::uuid[]) AS c(id)`,
        [ids],
      );
      if (rows.some((r) => !r.unlocked)) {
        this.broken = true;
      }
    } catch (err) {
      this.broken = true;
      throw err;
    } finally {
      for (const id of ids) {
        this.held.delete(id);
      }
    }
  }

  private async session(): Promise<QueryRunner> {
    if (!this.runner) {
      const runner = this.dataSource.createQueryRunner();
      await runner.connect();
      this.runner = runner;
      this.broken = false;
    }
    return this.runner;
  }

  private async releaseIfIdle(): Promise<void> {
    if (!this.runner || this.held.size > 0) {
      return;
    }
    const runner = this.runner;
    this.runner = null;
    if (this.broken) {
      // The count may be wrong: drop whatever this session holds before the pool reuses it. If
      // that fails the connection is gone, and Postgres dropped its locks with it.
      await runner.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      this.broken = false;
    }
    await runner.release();
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** A failed notification's sealed secrets (NotificationOutbox.failedWithSecrets). */
export interface FailedNotificationSecrets {
  id: string;
  merchantId: string;
  sealedSecret: string;
  sealedPreviousSecret: string | null;
}

/**
 * The webhook outbox's SQL. Dispatcher workers claim through NotificationClaims: a row is in
 * exactly one dispatcher's hands while it is being delivered, others skip it, and a dispatcher
 * that dies mid-delivery loses its database session, which releases its rows, untouched.
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
   * The latest notification that announced the transaction's UNKNOWN outcome, if the outbox
   * still holds it (delivered ones are purged after WEBHOOK_RETENTION_DAYS): the merchant's
   * mode and the notification secret it was written with. Read inside the record that learns
   * the outcome (its manager). One probe of a partial index.
   */
  async unknownAnnouncement(
    manager: EntityManager,
    key: { merchantId: string; orderId: string; transactionId: string },
  ): Promise<{ merchantMode: MerchantMode; sealedSecret: string } | null> {
    const rows: { merchantMode: MerchantMode; sealedSecret: string }[] = await manager.query(
      `SELECT merchant_mode AS "merchantMode", sealed_secret AS "sealedSecret"
         FROM order_transaction.notification_outbox
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3 AND ${UNKNOWN_ANNOUNCEMENT_SQL}
        ORDER BY created_at DESC
        LIMIT 1`,
      [key.merchantId, key.orderId, key.transactionId],
    );
    return rows[0] ?? null;
  }

  /**
   * The latest notification of the order, if the outbox still holds one: the merchant's mode
   * and the notification secret it was written with. Read inside the record of a transaction
   * known only from the acquirer's records (RecordLostTransaction), which has no merchant
   * profile to ask.
   */
  async latestOfOrder(manager: EntityManager, key: { merchantId: string; orderId: string }): Promise<{ merchantMode: MerchantMode; sealedSecret: string } | null> {
    const rows: { merchantMode: MerchantMode; sealedSecret: string }[] = await manager.query(
      `SELECT merchant_mode AS "merchantMode", sealed_secret AS "sealedSecret"
         FROM order_transaction.notification_outbox
        WHERE merchant_id = $1 AND order_id = $2
        ORDER BY created_at DESC
        LIMIT 1`,
      [key.merchantId, key.orderId],
    );
    return rows[0] ?? null;
  }

  /** A dispatcher worker's claim session (one pooled connection while it holds anything). */
  claims(): NotificationClaims {
    return new NotificationClaims(this.dataSource);
  }

  /**
   * Moves the next attempt of a receiver's pending notifications due before `until` to `until`
   * (a receiver that keeps timing out is left alone for a while; no attempt is counted). A row
   * in flight meanwhile is unaffected: its outcome, written after, sets its next attempt.
   * Answers how many were moved.
   */
  async deferTarget(target: string, until: Date): Promise<number> {
    const [row]: { deferred: string }[] = await this.dataSource.query(
      `WITH deferred AS (
         UPDATE order_transaction.notification_outbox SET next_attempt_at = $2
          WHERE status = 'PENDING' AND next_attempt_at < $2 AND ${RECEIVER_SQL} = $1
          RETURNING 1
       )
       SELECT count(*) AS deferred FROM deferred`,
      [target, until],
    );
    return Number(row.deferred);
  }

  /**
   * Notifications not delivered yet: due now, or waiting out a retry's backoff (up to
   * WEBHOOK_RETRY_MAX_DELAY_MS) or a timed-out receiver's deferral. The backlog alerts watch.
   */
  async depth(): Promise<number> {
    const [row]: { depth: string }[] = await this.dataSource.query(
      `SELECT count(*) AS depth FROM order_transaction.notification_outbox WHERE status = 'PENDING'`,
    );
    return Number(row.depth);
  }

  /**
   * Pending notifications due at `now` (in flight included): the work dispatchers can do now,
   * which they scale on. Rows waiting for their next attempt are left out: more replicas would
   * not deliver them sooner. The claim's condition, on the due index.
   */
  async due(now: Date): Promise<number> {
    const [row]: { due: string }[] = await this.dataSource.query(
      `SELECT count(*) AS due FROM order_transaction.notification_outbox WHERE status = 'PENDING' AND next_attempt_at <= $1`,
      [now],
    );
    return Number(row.due);
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
   * The failed notifications a resend would queue (by id, or every failed one of a merchant) and
   * the sealed secrets their deliveries would open, so the resend can first check it can open
   * them. The sealed secrets of a notification never change after it is written.
   */
  failedWithSecrets(selection: { ids: string[] } | { merchantId: string }): Promise<FailedNotificationSecrets[]> {
    const byIds = 'ids' in selection;
    return this.dataSource.query(
      `SELECT id, merchant_id AS "merchantId", sealed_secret AS "sealedSecret", sealed_previous_secret AS "sealedPreviousSecret"
         FROM order_transaction.notification_outbox
        WHERE status = 'FAILED' AND ${byIds ? 'id = ANY($1::uuid[])' : 'merchant_id = $1'}
        ORDER BY id`,
      [byIds ? selection.ids : selection.merchantId],
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

  /** Deletes delivered notifications delivered before `before`, at most `limit` (one batch); answers how many. */
  async purgeDelivered(before: Date, limit: number): Promise<number> {
    return this.purge(`status = 'DELIVERED' AND delivered_at < $1`, before, limit);
  }

  /**
   * Deletes failed notifications whose last attempt was before `before`, at most `limit` (one
   * batch); answers how many. Until then an operator can still re-send them.
   */
  async purgeFailed(before: Date, limit: number): Promise<number> {
    return this.purge(`status = 'FAILED' AND last_attempt_at < $1`, before, limit);
  }

  private async purge(condition: string, before: Date, limit: number): Promise<number> {
    // The condition again on the DELETE itself: Postgres re-checks it on a row another
    // transaction changed meanwhile (a resend making it PENDING), not the subquery's choice.
    // The batch's ids as an array: computed once, whatever the plan. As `id IN (subquery)`, a
    // planner that believed the table small (statistics not yet taken after a burst of rows)
    // joined by nested loop and read the batch again for every row it deleted: 7.6 s for 6,000
    // rows here, past the statement timeout on a busy database, so no purge ever finished.
    const [row]: { purged: string }[] = await this.dataSource.query(
      `WITH purged AS (
         DELETE FROM order_transaction.notification_outbox
          WHERE id = ANY (ARRAY(SELECT id FROM order_transaction.notification_outbox WHERE ${condition} LIMIT $2)) AND ${condition}
          RETURNING 1
       )
       SELECT count(*) AS purged FROM purged`,
      [before, limit],
    );
    return Number(row.purged);
  }
}
