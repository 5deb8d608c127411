import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type { JsonObject } from '@gateway/contracts';
import { TransactionEntity } from './transaction.entity';

/**
 * The response of each operation processed on a transaction, kept for replays (the same
 * request again gets this body again) and retrieval (a transaction reads as the response of
 * its latest operation). Card numbers in it are masked; it never holds a PAN.
 */
@Entity({ name: 'operation_responses' })
@Unique('operation_responses_sequence_key', ['merchantId', 'orderId', 'sequence'])
@Check('operation_responses_request_hash_check', `request_hash ~ '^[0-9a-f]{64}$'`)
export class OperationResponseEntity {
  @PrimaryColumn({ name: 'merchant_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'operation_responses_pkey' })
  merchantId: string;

  @PrimaryColumn({ name: 'order_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'operation_responses_pkey' })
  orderId: string;

  @PrimaryColumn({ name: 'transaction_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'operation_responses_pkey' })
  transactionId: string;

  @PrimaryColumn({ name: 'api_operation', type: 'varchar', length: 40, primaryKeyConstraintName: 'operation_responses_pkey' })
  apiOperation: string;

  @ManyToOne(() => TransactionEntity, { nullable: false })
  @JoinColumn([
    { name: 'merchant_id', referencedColumnName: 'merchantId', foreignKeyConstraintName: 'operation_responses_transaction_fkey' },
    { name: 'order_id', referencedColumnName: 'orderId', foreignKeyConstraintName: 'operation_responses_transaction_fkey' },
    { name: 'transaction_id', referencedColumnName: 'transactionId', foreignKeyConstraintName: 'operation_responses_transaction_fkey' },
  ])
  transaction?: TransactionEntity;

  /** The order's operation count when this response was stored: the latest one wins on retrieval. */
  @Column({ type: 'integer' })
  sequence: number;

  /** HMAC-SHA256, under REQUEST_HASH_KEY, of the canonical request body: a replay must match it. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ type: 'jsonb' })
  body: JsonObject;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
