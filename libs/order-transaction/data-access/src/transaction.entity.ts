import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type { TransactionResult, TransactionType } from '@gateway/contracts';
import { MONEY_COLUMN, TRANSACTION_RESULT_CHECK, TRANSACTION_TYPE_CHECK } from './ledger-columns';
import type { ReservedAnnouncement } from './ledger-rows';
import { OrderEntity } from './order.entity';

/** A transaction on an order, of any type; its id is unique within the order. */
@Entity({ name: 'transactions' })
@Unique('transactions_sequence_key', ['merchantId', 'orderId', 'sequence'])
@Check('transactions_type_check', TRANSACTION_TYPE_CHECK)
@Check('transactions_result_check', TRANSACTION_RESULT_CHECK)
@Check('transactions_amount_check', 'amount >= 0.0')
@Check('transactions_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('transactions_tax_amount_check', 'tax_amount >= 0.0')
// A BRIN on created_at (the abandoned reservations' sweep): built by IndexTransactionCreation1765200000000.
@Index('transactions_created_at_brin_idx', { synchronize: false })
export class TransactionEntity {
  @PrimaryColumn({ name: 'merchant_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'transactions_pkey' })
  merchantId: string;

  @PrimaryColumn({ name: 'order_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'transactions_pkey' })
  orderId: string;

  @PrimaryColumn({ name: 'transaction_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'transactions_pkey' })
  transactionId: string;

  @ManyToOne(() => OrderEntity, { nullable: false })
  @JoinColumn([
    { name: 'merchant_id', referencedColumnName: 'merchantId', foreignKeyConstraintName: 'transactions_order_fkey' },
    { name: 'order_id', referencedColumnName: 'orderId', foreignKeyConstraintName: 'transactions_order_fkey' },
  ])
  order?: OrderEntity;

  /** Position on the order (1 = the order's first operation). */
  @Column({ type: 'integer' })
  sequence: number;

  /** The operation that created the transaction. */
  @Column({ name: 'api_operation', type: 'varchar', length: 40 })
  apiOperation: string;

  @Column({ type: 'varchar', length: 24 })
  type: TransactionType;

  @Column({ ...MONEY_COLUMN })
  amount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 8 })
  result: TransactionResult;

  @Column({ name: 'gateway_code', type: 'varchar', length: 40 })
  gatewayCode: string;

  @Column({ name: 'target_transaction_id', type: 'varchar', length: 40, nullable: true })
  targetTransactionId: string | null;

  @Column({ name: 'funding_type', type: 'varchar', length: 40, nullable: true })
  fundingType: string | null;

  /** The tax included in `amount`, when the operation named it (null: not known). */
  @Column({ name: 'tax_amount', ...MONEY_COLUMN, nullable: true })
  taxAmount: string | null;

  /**
   * How the outcome of an open card transaction (a reservation, an UNKNOWN outcome) would be
   * announced, for a resolution that serves no request (ReservedAnnouncement: URL, merchant mode,
   * sealed notification secret); null otherwise. Added by AddTransactionAnnouncement1765800000000.
   */
  @Column({ type: 'jsonb', nullable: true })
  announcement: ReservedAnnouncement | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
