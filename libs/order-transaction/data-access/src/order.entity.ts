import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { JsonObject, OrderStatus } from '@gateway/contracts';
import { MONEY_COLUMN, ORDER_AMOUNTS_CHECK, ORDER_STATUS_CHECK } from './ledger-columns';

/**
 * An order of a merchant: its currency and amount, the totals and status the ledger derives
 * from its transactions, and the order-level details the merchant sent. The row is the lock
 * every write on the order takes (SELECT ... FOR UPDATE), so writes on one order serialise in
 * the database even when the edge's Redis lock has lapsed.
 */
@Entity({ name: 'orders' })
@Check('orders_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('orders_status_check', ORDER_STATUS_CHECK)
@Check('orders_amounts_check', ORDER_AMOUNTS_CHECK)
@Check('orders_operation_count_check', 'operation_count > 0')
// Built CONCURRENTLY by IndexOrdersToStrip1765600000001 (the payer personal-data retention reads the orders it has not stripped by creation).
@Index('orders_to_strip_idx', ['createdAt', 'merchantId', 'orderId'], { where: 'personal_data_stripped_at IS NULL' })
export class OrderEntity {
  @PrimaryColumn({ name: 'merchant_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'orders_pkey' })
  merchantId: string;

  @PrimaryColumn({ name: 'order_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'orders_pkey' })
  orderId: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ ...MONEY_COLUMN })
  amount: string;

  @Column({ type: 'varchar', length: 24 })
  status: OrderStatus;

  @Column({ name: 'total_authorized_amount', ...MONEY_COLUMN })
  totalAuthorizedAmount: string;

  @Column({ name: 'total_captured_amount', ...MONEY_COLUMN })
  totalCapturedAmount: string;

  @Column({ name: 'total_refunded_amount', ...MONEY_COLUMN })
  totalRefundedAmount: string;

  /** Order-level data as the merchant last gave it (description, reference, custom, items...). */
  @Column({ type: 'jsonb' })
  details: JsonObject;

  @Column({ name: 'notification_url', type: 'varchar', length: 2048, nullable: true })
  notificationUrl: string | null;

  /** The newest lock fencing token a write carried; older ones are refused. */
  @Column({ name: 'last_fencing_token', type: 'numeric', precision: 20, scale: 0 })
  lastFencingToken: string;

  /** Operations recorded on the order; numbers its transactions and stored responses in order. */
  @Column({ name: 'operation_count', type: 'integer' })
  operationCount: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** When the payer personal-data retention stripped the order; NULL before, and after any later operation. */
  @Column({ name: 'personal_data_stripped_at', type: 'timestamptz', nullable: true })
  personalDataStrippedAt: Date | null;
}
