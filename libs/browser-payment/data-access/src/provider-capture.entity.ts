import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BrowserPaymentEntity } from './browser-payment.entity';
import { MONEY_COLUMN } from './payment-columns';

/**
 * A capture made at the provider for the ledger (`browser-payment.capture.v1`) of a payment
 * initiated with AUTHORIZE, kept so a repeated request for the same capture transaction answers
 * the same outcome, and so a refund naming the capture finds the payment it was taken from.
 */
@Entity({ name: 'provider_captures' })
@Check('provider_captures_amount_check', 'amount > 0')
@Check('provider_captures_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('provider_captures_result_check', `result IN ('SUCCESS', 'FAILURE')`)
export class ProviderCaptureEntity {
  @PrimaryColumn({ name: 'payment_id', type: 'uuid', primaryKeyConstraintName: 'provider_captures_pkey' })
  paymentId: string;

  /** The capture's own transaction id on the order. */
  @PrimaryColumn({ name: 'capture_transaction_id', type: 'varchar', length: 40, primaryKeyConstraintName: 'provider_captures_pkey' })
  captureTransactionId: string;

  @ManyToOne(() => BrowserPaymentEntity, { nullable: false })
  @JoinColumn({ name: 'payment_id', referencedColumnName: 'id', foreignKeyConstraintName: 'provider_captures_payment_fkey' })
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
