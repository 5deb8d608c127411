import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { inList, MONEY_COLUMN } from './payment-columns';
import { SimulatedProviderPaymentEntity } from './simulated-provider-payment.entity';

/** The simulators' answer to a capture: made, or declined and why. */
export const SIMULATED_CAPTURE_CODES = ['CAPTURED', 'CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT', 'NOT_AUTHORIZED'] as const;
export type SimulatedCaptureCode = (typeof SIMULATED_CAPTURE_CODES)[number];

/**
 * A capture the built-in simulators were asked for, under the key the gateway gave it (its
 * capture transaction id), as refunds are kept (simulated_provider_refunds): one capture per key,
 * and every repeat of the key answered with this first outcome, declined ones included.
 */
@Entity({ name: 'simulated_provider_captures' })
@Check('simulated_provider_captures_amount_check', 'amount > 0')
@Check('simulated_provider_captures_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('simulated_provider_captures_provider_code_check', inList('provider_code', SIMULATED_CAPTURE_CODES))
@Check(
  'simulated_provider_captures_outcome_check',
  `approved = (provider_code = 'CAPTURED') AND approved = (reference IS NOT NULL)`,
)
export class SimulatedProviderCaptureEntity {
  @PrimaryColumn({
    name: 'payment_reference',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'simulated_provider_captures_pkey',
  })
  paymentReference: string;

  /** The capture's key: unique within its payment. */
  @PrimaryColumn({
    name: 'capture_id',
    type: 'varchar',
    length: 40,
    primaryKeyConstraintName: 'simulated_provider_captures_pkey',
  })
  captureId: string;

  @ManyToOne(() => SimulatedProviderPaymentEntity, { nullable: false })
  @JoinColumn({
    name: 'payment_reference',
    referencedColumnName: 'reference',
    foreignKeyConstraintName: 'simulated_provider_captures_payment_fkey',
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
  providerCode: SimulatedCaptureCode;

  /** The capture's own reference at the provider; none for a declined one. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  reference: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
