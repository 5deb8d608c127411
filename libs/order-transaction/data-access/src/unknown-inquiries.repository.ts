import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { MerchantMode } from '@gateway/contracts';
import { DataSource, EntityManager } from 'typeorm';

/** A transaction the gateway is to ask the acquirer about. */
export interface UnknownInquiryKey {
  merchantId: string;
  orderId: string;
  transactionId: string;
}

/** A queued inquiry as a claim hands it out. */
export interface ClaimedInquiry extends UnknownInquiryKey {
  merchantMode: MerchantMode;
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
   * A card reservation found abandoned PENDING (AbandonedReservations, on a read that met it):
   * queued on its own, outside any record, due at once. `recordedAt` is the reservation's last
   * write. Queued already: nothing changes (its attempts and backoff stay), and it answers false.
   */
  addAbandoned(inquiry: UnknownInquiryKey & { merchantMode: MerchantMode; recordedAt: Date }): Promise<boolean> {
    return this.add(this.dataSource.manager, inquiry);
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
