import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { JsonObject, MerchantMode } from '@gateway/contracts';

export const NOTIFICATION_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * The webhook outbox: one row per order change a merchant asked to be told about, written in
 * the ledger's database transaction (so it exists exactly when the change does) and delivered
 * at least once by the dispatcher. The row holds what delivery needs, so the dispatcher never
 * asks anyone: the payload (card numbers masked, as stored by the ledger), the address, the
 * merchant's mode (which addresses are allowed) and the notification secret still sealed.
 */
@Entity({ name: 'notification_outbox' })
@Check('notification_outbox_status_check', `status IN ('PENDING', 'DELIVERED', 'FAILED')`)
@Check('notification_outbox_merchant_mode_check', `merchant_mode IN ('TEST', 'LIVE')`)
@Check('notification_outbox_attempts_check', 'attempts >= 0')
@Check('notification_outbox_url_check', `url ~ '^https://'`)
@Index('notification_outbox_due_idx', ['nextAttemptAt'], { where: `status = 'PENDING'` })
@Index('notification_outbox_failed_idx', ['merchantId', 'createdAt'], { where: `status = 'FAILED'` })
@Index('notification_outbox_delivered_idx', ['deliveredAt'], { where: `status = 'DELIVERED'` })
// Built CONCURRENTLY by IndexDeliveredNotificationsByOrder1765400000000 (a payer's erasure finds an order's delivered notifications).
@Index('notification_outbox_delivered_order_idx', ['merchantId', 'orderId'], { where: `status = 'DELIVERED'` })
// On an expression TypeORM cannot declare: built by IndexNotificationReceivers1764400000000.
@Index('notification_outbox_receiver_due_idx', { synchronize: false })
// Partial on the payload's result: built by IndexUnknownAnnouncements1764800000000.
@Index('notification_outbox_unknown_idx', { synchronize: false })
export class NotificationEntity {
  /** The notification id receivers de-duplicate on (X-Notification-Id). */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'notification_outbox_pkey' })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ name: 'merchant_mode', type: 'varchar', length: 4 })
  merchantMode: MerchantMode;

  @Column({ name: 'order_id', type: 'varchar', length: 40 })
  orderId: string;

  @Column({ name: 'transaction_id', type: 'varchar', length: 40 })
  transactionId: string;

  @Column({ name: 'api_operation', type: 'varchar', length: 40 })
  apiOperation: string;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** The order and transaction as the ledger stored them (card numbers masked). */
  @Column({ type: 'jsonb' })
  payload: JsonObject;

  /** Sealed under WEBHOOK_SECRET_KEYS; only the dispatcher opens it. */
  @Column({ name: 'sealed_secret', type: 'text' })
  sealedSecret: string;

  /** During a secret rotation: the previous secret, deliveries carry a signature with each. */
  @Column({ name: 'sealed_previous_secret', type: 'text', nullable: true })
  sealedPreviousSecret: string | null;

  @Column({ type: 'varchar', length: 10 })
  status: NotificationStatus;

  /** Delivery attempts since the retry window started (reset when an operator re-sends). */
  @Column({ type: 'integer' })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt: Date;

  /** Retries go on until this plus WEBHOOK_RETRY_WINDOW_HOURS; a re-send starts a new window. */
  @Column({ name: 'window_started_at', type: 'timestamptz' })
  windowStartedAt: Date;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null;

  /** What the last attempt got (`HTTP 503`, `ECONNREFUSED`...): never a body or a secret. */
  @Column({ name: 'last_result', type: 'varchar', length: 200, nullable: true })
  lastResult: string | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;
}
