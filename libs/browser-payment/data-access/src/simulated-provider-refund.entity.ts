import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { inList, MONEY_COLUMN } from './payment-columns';
import { SimulatedProviderPaymentEntity } from './simulated-provider-payment.entity';

/** The simulators' answer to a refund: made, or declined and why. */
export const SIMULATED_REFUND_CODES = [
  'REFUNDED',
  'REFUND_EXCEEDS_CAPTURED_AMOUNT',
  'NOTHING_CAPTURED',
] as const;
export type SimulatedRefundCode = (typeof SIMULATED_REFUND_CODES)[number];

/**
 * A refund the built-in simulators were asked for, under the key the gateway gave it (its
 * refund transaction id): a provider makes one refund per key, and answers every repeat of the
 * key with this first outcome, declined ones included.
 */
@Entity({ name: 'simulated_provider_refunds' })
@Check('simulated_provider_refunds_amount_check', 'amount > 0')
@Check('simulated_provider_refunds_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('simulated_provider_refunds_provider_code_check', inList('provider_code', SIMULATED_REFUND_CODES))
@Check(
  'simulated_provider_refunds_outcome_check',
  `approved = (provider_code = 'REFUNDED') AND approved = (reference IS NOT NULL)`,
)
export class SimulatedProviderRefundEntity {
  @PrimaryColumn({
    name: 'payment_reference',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'simulated_provider_refunds_pkey',
  })
  paymentReference: string;

  /** The refund's key: unique within its payment. */
  @PrimaryColumn({
    name: 'refund_id',
    type: 'varchar',
    length: 40,
    primaryKeyConstraintName: 'simulated_provider_refunds_pkey',
  })
  refundId: string;

  @ManyToOne(() => SimulatedProviderPaymentEntity, { nullable: false })
  @JoinColumn({
    name: 'payment_reference',
    referencedColumnName: 'reference',
    foreignKeyConstraintName: 'simulated_provider_refunds_payment_fkey',
  })
  payment?: SimulatedProviderPaymentEntity;

  /** The amount the first request under the key asked for, in the payment's currency. */
  @Column({ ...MONEY_COLUMN })
  amount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'boolean' })
  approved: boolean;

  @Column({ name: 'provider_code', type: 'varchar', length: 40 })
  providerCode: SimulatedRefundCode;

  /** The refund's own reference at the provider; none for a declined one. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  reference: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
