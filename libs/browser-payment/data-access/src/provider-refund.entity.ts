import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BrowserPaymentEntity } from './browser-payment.entity';
import { MONEY_COLUMN } from './payment-columns';

/**
 * A refund made at the provider for the ledger (`browser-payment.refund.v1`), kept so a repeated
 * request for the same refund transaction answers the same outcome instead of refunding twice.
 */
@Entity({ name: 'provider_refunds' })
@Check('provider_refunds_amount_check', 'amount > 0')
@Check('provider_refunds_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('provider_refunds_result_check', `result IN ('SUCCESS', 'FAILURE')`)
export class ProviderRefundEntity {
  @PrimaryColumn({ name: 'payment_id', type: 'uuid', primaryKeyConstraintName: 'provider_refunds_pkey' })
  paymentId: string;

  /** The refund's own transaction id on the order. */
  @PrimaryColumn({ name: 'refund_transaction_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'provider_refunds_pkey' })
  refundTransactionId: string;

  @ManyToOne(() => BrowserPaymentEntity, { nullable: false })
  @JoinColumn({ name: 'payment_id', referencedColumnName: 'id', foreignKeyConstraintName: 'provider_refunds_payment_fkey' })
  payment?: BrowserPaymentEntity;

  @Column({ ...MONEY_COLUMN })
  amount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 8 })
  result: 'SUCCESS' | 'FAILURE';

  @Column({ name: 'gateway_code', type: 'varchar', length: 40 })
  gatewayCode: string;

  @Column({ name: 'provider_reference', type: 'varchar', length: 64, nullable: true })
  providerReference: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
