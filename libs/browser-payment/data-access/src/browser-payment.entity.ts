import { Check, Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { type JsonObject, MERCHANT_MODES, type MerchantMode } from '@gateway/contracts';
import {
  CONFIRM_AWAITED_PREDICATE,
  CONFIRMATIONS,
  Confirmation,
  EXPIRY_DUE_PREDICATE,
  inList,
  INTERACTION_STATUSES,
  InteractionStatus,
  MONEY_COLUMN,
  PAYER_OUTCOMES,
  PAYMENT_OPERATIONS,
  PAYMENT_RESULTS,
  PayerOutcome,
  PaymentOperation,
  PaymentResult,
  ProviderName,
  PROVIDERS,
  TO_STRIP_PREDICATE,
} from './payment-columns';

/**
 * A browser payment as browser-payment knows it: what the merchant asked for, where the
 * payer's journey is, and what the provider said. The order ledger holds the money view; this
 * row holds what only this service knows (the redirect token, the provider's reference, the
 * payer's outcome).
 *
 * The redirect token is kept only as its SHA-256: it is a bearer credential for the payer's
 * pages, so a copy of this table does not hand out live journeys. No card data is involved in
 * browser payments; `request` holds the order, shipping and provider options as the merchant
 * sent them (validated), `provider_details` what the provider reported about the payer's
 * account, already masked.
 */
@Entity({ name: 'payments' })
@Unique('payments_transaction_key', ['merchantId', 'orderId', 'transactionId'])
@Unique('payments_token_hash_key', ['tokenHash'])
@Check('payments_provider_check', inList('provider', PROVIDERS))
@Check('payments_merchant_mode_check', inList('merchant_mode', MERCHANT_MODES))
@Check('payments_operation_check', inList('operation', PAYMENT_OPERATIONS))
@Check('payments_confirmation_check', inList('confirmation', CONFIRMATIONS))
@Check('payments_interaction_status_check', inList('interaction_status', INTERACTION_STATUSES))
@Check('payments_result_check', inList('result', PAYMENT_RESULTS))
@Check('payments_payer_outcome_check', inList('payer_outcome', PAYER_OUTCOMES))
@Check('payments_amount_check', 'amount > 0')
@Check('payments_currency_check', `currency ~ '^[A-Z]{3}$'`)
@Check('payments_token_hash_check', 'octet_length(token_hash) = 32')
@Index('payments_expiry_due_idx', ['tokenExpiresAt', 'id'], { where: EXPIRY_DUE_PREDICATE })
// Built CONCURRENTLY by IndexPaymentsToStrip1765600000001 (the payer personal-data retention reads the finished payments it has not stripped by initiation).
@Index('payments_to_strip_idx', ['timeInitiated', 'id'], { where: TO_STRIP_PREDICATE })
// Built CONCURRENTLY by IndexPaymentsAwaitingConfirm1765800000000 (the sweep reads the payments whose confirm window passed by return time).
@Index('payments_confirm_awaited_idx', ['timeReturned'], { where: CONFIRM_AWAITED_PREDICATE })
export class BrowserPaymentEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'payments_pkey' })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ name: 'order_id', type: 'varchar', length: 40 })
  orderId: string;

  /** The initiate's transaction id; the confirm addresses the same one. */
  @Column({ name: 'transaction_id', type: 'varchar', length: 40 })
  transactionId: string;

  @Column({ type: 'varchar', length: 10 })
  provider: ProviderName;

  /**
   * The merchant's mode when it initiated: every later step goes to the provider this mode routes
   * to (`ProviderAdapters.forPayment`), whatever the merchant's mode is by then, so a test
   * payment is finished at its simulator and a live one never reaches a simulator
   * (docs/decisions/browser-payment-journey.md, amendment 2026-11-26 (6)). The default is for
   * the rows from before the column, and those a release without it inserts during a rollout:
   * all initiated by test merchants, as live ones were refused before anything was stored.
   */
  @Column({ name: 'merchant_mode', type: 'varchar', length: 4, default: 'TEST' })
  merchantMode: MerchantMode;

  @Column({ type: 'varchar', length: 9 })
  operation: PaymentOperation;

  @Column({ type: 'varchar', length: 19 })
  confirmation: Confirmation;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  /** The amount initiated, or confirmed. */
  @Column({ ...MONEY_COLUMN })
  amount: string;

  @Column({ name: 'interaction_status', type: 'varchar', length: 22 })
  interactionStatus: InteractionStatus;

  @Column({ type: 'varchar', length: 8 })
  result: PaymentResult;

  @Column({ name: 'gateway_code', type: 'varchar', length: 40 })
  gatewayCode: string;

  @Column({ name: 'payer_outcome', type: 'varchar', length: 9, nullable: true })
  payerOutcome: PayerOutcome | null;

  /** SHA-256 of the redirect token (BP-...). */
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  /** After this the token opens nothing: the payer starts again from the merchant's site. */
  @Column({ name: 'token_expires_at', type: 'timestamptz' })
  tokenExpiresAt: Date;

  /** The provider's id of the payment. */
  @Column({ name: 'provider_reference', type: 'varchar', length: 64 })
  providerReference: string;

  @Column({ name: 'return_url', type: 'varchar', length: 2048 })
  returnUrl: string;

  @Column({ type: 'jsonb' })
  request: JsonObject;

  @Column({ name: 'provider_details', type: 'jsonb', nullable: true })
  providerDetails: JsonObject | null;

  @Column({ name: 'time_initiated', type: 'timestamptz' })
  timeInitiated: Date;

  @Column({ name: 'time_redirected', type: 'timestamptz', nullable: true })
  timeRedirected: Date | null;

  @Column({ name: 'time_returned', type: 'timestamptz', nullable: true })
  timeReturned: Date | null;

  @Column({ name: 'time_completed', type: 'timestamptz', nullable: true })
  timeCompleted: Date | null;

  /**
   * Until when an attempt holds the payment's execution at the provider (PaymentSteps.execute):
   * one attempt at a time executes, records and, if the ledger refuses, reverses. Null: none.
   */
  @Column({ name: 'execution_lease_until', type: 'timestamptz', nullable: true })
  executionLeaseUntil: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** When the payer personal-data retention stripped the payment's order; NULL before, and after any later step. */
  @Column({ name: 'personal_data_stripped_at', type: 'timestamptz', nullable: true })
  personalDataStrippedAt: Date | null;
}
