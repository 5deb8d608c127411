import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Amounts per payment: the spec answers them up to 99999999999999 (MAX_AGREEMENT_AMOUNT,
 * docs/decisions/amount-bounds.md) with at most 3 decimals (what the API answers): 14 integer
 * digits and 3 decimals, wider than the ledger's MONEY_COLUMN.
 */
const AGREEMENT_AMOUNT_COLUMN = { type: 'numeric', precision: 17, scale: 3 } as const;

/**
 * A merchant's agreement (the spec's `agreement` resource): the terms its first successful
 * VERIFY, AUTHORIZE or PAY stated, kept so that later payments naming its id reuse them
 * (docs/decisions/agreements.md). Written once, by the first operation to commit; never
 * updated, except that a payer's erasure clears `custom_data` (payer-personal-data.md,
 * amendment 2026-11-27). Another merchant's agreement of the same id is another row.
 */
@Entity({ name: 'agreements' })
@Check('agreements_type_check', `type IN ('INSTALLMENT', 'OTHER', 'RECURRING', 'UNSCHEDULED')`)
@Check('agreements_amount_variability_check', `amount_variability IN ('FIXED', 'VARIABLE')`)
@Check(
  'agreements_payment_frequency_check',
  `payment_frequency IN ('AD_HOC', 'DAILY', 'FORTNIGHTLY', 'MONTHLY', 'OTHER', 'QUARTERLY', 'TWICE_YEARLY', 'WEEKLY', 'YEARLY')`,
)
// Amounts per payment mean something only with the currency they were given in.
@Check(
  'agreements_amount_currency_check',
  `amount_currency ~ '^[A-Z]{3}$' OR (amount_currency IS NULL AND minimum_amount_per_payment IS NULL AND maximum_amount_per_payment IS NULL)`,
)
@Check(
  'agreements_counts_check',
  'minimum_days_between_payments BETWEEN 1 AND 9999 AND number_of_payments BETWEEN 1 AND 999',
)
export class AgreementEntity {
  @PrimaryColumn({
    name: 'merchant_id',
    type: 'varchar',
    length: 40,
    primaryKeyConstraintName: 'agreements_pkey',
  })
  merchantId: string;

  @PrimaryColumn({
    name: 'agreement_id',
    type: 'varchar',
    length: 100,
    primaryKeyConstraintName: 'agreements_pkey',
  })
  agreementId: string;

  /** As the first payment stated it, OTHER (the spec's default) when it stated none. */
  @Column({ type: 'varchar', length: 11 })
  type: string;

  @Column({ name: 'amount_variability', type: 'varchar', length: 8, nullable: true })
  amountVariability: string | null;

  @Column({ name: 'custom_data', type: 'varchar', length: 2048, nullable: true })
  customData: string | null;

  @Column({ name: 'expiry_date', type: 'date', nullable: true })
  expiryDate: string | null;

  @Column({ name: 'start_date', type: 'date', nullable: true })
  startDate: string | null;

  @Column({ name: 'minimum_amount_per_payment', ...AGREEMENT_AMOUNT_COLUMN, nullable: true })
  minimumAmountPerPayment: string | null;

  @Column({ name: 'maximum_amount_per_payment', ...AGREEMENT_AMOUNT_COLUMN, nullable: true })
  maximumAmountPerPayment: string | null;

  /** The order currency the amounts per payment were given in (null: no amounts). */
  @Column({ name: 'amount_currency', type: 'varchar', length: 3, nullable: true })
  amountCurrency: string | null;

  @Column({ name: 'minimum_days_between_payments', type: 'integer', nullable: true })
  minimumDaysBetweenPayments: number | null;

  @Column({ name: 'number_of_payments', type: 'integer', nullable: true })
  numberOfPayments: number | null;

  @Column({ name: 'payment_frequency', type: 'varchar', length: 12, nullable: true })
  paymentFrequency: string | null;

  @Column({ name: 'retailer_abbreviated_trading_name', type: 'varchar', length: 10, nullable: true })
  retailerAbbreviatedTradingName: string | null;

  @Column({ name: 'retailer_merchant_category_code', type: 'varchar', length: 4, nullable: true })
  retailerMerchantCategoryCode: string | null;

  @Column({ name: 'retailer_trading_name', type: 'varchar', length: 100, nullable: true })
  retailerTradingName: string | null;

  /** Where and when it was established: the operation whose success did it. */
  @Column({ name: 'established_order_id', type: 'varchar', length: 40 })
  establishedOrderId: string;

  @Column({ name: 'established_transaction_id', type: 'varchar', length: 40 })
  establishedTransactionId: string;

  @Column({ name: 'established_operation', type: 'varchar', length: 40 })
  establishedOperation: string;

  @Column({ name: 'established_at', type: 'timestamptz' })
  establishedAt: Date;
}
