import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The merchants' agreements (docs/decisions/agreements.md). A new table: its constraints and
 * primary key index are built with it, so nothing here waits on a table in use. The primary
 * key is the only index: every read is by (merchant, agreement id).
 */
export class CreateAgreements1764600000000 implements MigrationInterface {
  name = 'CreateAgreements1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE order_transaction.agreements (
        merchant_id varchar(40) NOT NULL,
        agreement_id varchar(100) NOT NULL,
        type varchar(11) NOT NULL,
        amount_variability varchar(8),
        custom_data varchar(2048),
        expiry_date date,
        start_date date,
        minimum_amount_per_payment numeric(17,3),
        maximum_amount_per_payment numeric(17,3),
        amount_currency varchar(3),
        minimum_days_between_payments integer,
        number_of_payments integer,
        payment_frequency varchar(12),
        retailer_abbreviated_trading_name varchar(10),
        retailer_merchant_category_code varchar(4),
        retailer_trading_name varchar(100),
        established_order_id varchar(40) NOT NULL,
        established_transaction_id varchar(40) NOT NULL,
        established_operation varchar(40) NOT NULL,
        established_at timestamptz NOT NULL,
        CONSTRAINT agreements_pkey PRIMARY KEY (merchant_id, agreement_id),
        CONSTRAINT agreements_type_check CHECK (type IN ('INSTALLMENT', 'OTHER', 'RECURRING', 'UNSCHEDULED')),
        CONSTRAINT agreements_amount_variability_check CHECK (amount_variability IN ('FIXED', 'VARIABLE')),
        CONSTRAINT agreements_payment_frequency_check CHECK (payment_frequency IN ('AD_HOC', 'DAILY',
          'FORTNIGHTLY', 'MONTHLY', 'OTHER', 'QUARTERLY', 'TWICE_YEARLY', 'WEEKLY', 'YEARLY')),
        CONSTRAINT agreements_amount_currency_check CHECK (amount_currency ~ '^[A-Z]{3}$'
          OR (amount_currency IS NULL AND minimum_amount_per_payment IS NULL AND maximum_amount_per_payment IS NULL)),
        CONSTRAINT agreements_counts_check CHECK (minimum_days_between_payments BETWEEN 1 AND 9999
          AND number_of_payments BETWEEN 1 AND 999)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_transaction.agreements');
  }
}
