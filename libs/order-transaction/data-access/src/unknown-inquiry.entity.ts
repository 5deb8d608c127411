import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { MerchantMode } from '@gateway/contracts';

/**
 * The card transactions recorded UNKNOWN that the gateway is to ask the acquirer about
 * (docs/decisions/unknown-resolution.md, amendment: the gateway learns by itself). Written in
 * the record that left a transaction UNKNOWN, deleted in the record that resolves it; a
 * reconciler claims due rows (SELECT ... FOR UPDATE SKIP LOCKED, then a lease on
 * next_attempt_at), so any number of replicas share them. A queue of its own, rather than an
 * index on the ledger's transactions: completions change `result`, and an index on it would
 * cost every payment's completion its HOT update. Card reservations abandoned PENDING are queued
 * too, by a read that meets one or by the sweep, which reads the ledger by creation time through
 * a BRIN that leaves completions HOT (docs/decisions/unknown-resolution.md, amendment "abandoned
 * reservations nobody reads are swept").
 */
@Entity({ name: 'unknown_inquiries' })
@Check('unknown_inquiries_merchant_mode_check', `merchant_mode IN ('TEST', 'LIVE')`)
@Check('unknown_inquiries_attempts_check', 'attempts >= 0')
@Index('unknown_inquiries_due_idx', ['nextAttemptAt'])
export class UnknownInquiryEntity {
  @PrimaryColumn({ name: 'merchant_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'unknown_inquiries_pkey' })
  merchantId: string;

  @PrimaryColumn({ name: 'order_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'unknown_inquiries_pkey' })
  orderId: string;

  @PrimaryColumn({ name: 'transaction_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'unknown_inquiries_pkey' })
  transactionId: string;

  /**
   * Which acquirer the merchant's card operations go to (the request's profile is not kept); null
   * when the sweep queued it (no request, no profile): routed by the acquirer its stored body names.
   */
  @Column({ name: 'merchant_mode', type: 'varchar', length: 4, nullable: true })
  merchantMode: MerchantMode | null;

  /** When the UNKNOWN outcome was recorded: the reconciler waits UNKNOWN_INQUIRY_AFTER_MS from it. */
  @Column({ name: 'recorded_at', type: 'timestamptz' })
  recordedAt: Date;

  /** Not claimed before this: the lease of a claim, then the backoff after an inquiry that learned nothing. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt: Date;

  @Column({ type: 'integer' })
  attempts: number;

  /** What the last inquiry got (`UNKNOWN`, `ERROR`...): never card data. */
  @Column({ name: 'last_result', type: 'varchar', length: 200, nullable: true })
  lastResult: string | null;
}
