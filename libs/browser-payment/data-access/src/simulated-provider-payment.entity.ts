import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { inList, MONEY_COLUMN, PAYMENT_OPERATIONS, PaymentOperation, ProviderName, PROVIDERS } from './payment-columns';

export const SIMULATED_PAYMENT_STATUSES = ['CREATED', 'APPROVED', 'CANCELLED', 'ABANDONED', 'AUTHORIZED', 'CAPTURED', 'VOIDED'] as const;
export type SimulatedPaymentStatus = (typeof SIMULATED_PAYMENT_STATUSES)[number];

/**
 * The built-in provider simulators' own books: what "the provider" knows of a payment (the
 * payer's decision, the money it moved, what it refunded), apart from the gateway's view in
 * `payments`, so the adapter between them is exercised as it would be with a real provider.
 */
@Entity({ name: 'simulated_provider_payments' })
@Check('simulated_provider_payments_provider_check', inList('provider', PROVIDERS))
@Check('simulated_provider_payments_status_check', inList('status', SIMULATED_PAYMENT_STATUSES))
@Check('simulated_provider_payments_operation_check', inList('operation', PAYMENT_OPERATIONS))
@Check('simulated_provider_payments_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check(
  'simulated_provider_payments_amounts_check',
  'amount > 0 AND captured_amount >= 0 AND refunded_amount >= 0 AND refunded_amount <= captured_amount',
)
export class SimulatedProviderPaymentEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'simulated_provider_payments_pkey' })
  reference: string;

  @Column({ type: 'varchar', length: 10 })
  provider: ProviderName;

  @Column({ type: 'varchar', length: 9 })
  operation: PaymentOperation;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  /** The amount the payer approves (a confirm may execute another). */
  @Column({ ...MONEY_COLUMN })
  amount: string;

  @Column({ type: 'varchar', length: 10 })
  status: SimulatedPaymentStatus;

  /** PAY: the amount executed. AUTHORIZE: the sum of its captures (the payment is CAPTURED from the first on). */
  @Column({ name: 'captured_amount', ...MONEY_COLUMN })
  capturedAmount: string;

  @Column({ name: 'refunded_amount', ...MONEY_COLUMN })
  refundedAmount: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
