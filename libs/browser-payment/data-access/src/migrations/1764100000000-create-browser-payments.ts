import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Browser payments, the provider simulators' books and provider refunds. Money is
 * numeric(17,4) like the ledger's. No column has a default: the service writes every value.
 */
export class CreateBrowserPayments1764100000000 implements MigrationInterface {
  name = 'CreateBrowserPayments1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE browser_payment.payments (
        id uuid NOT NULL,
        merchant_id varchar(40) NOT NULL,
        order_id varchar(40) NOT NULL,
        transaction_id varchar(40) NOT NULL,
        provider varchar(10) NOT NULL,
        operation varchar(9) NOT NULL,
        confirmation varchar(19) NOT NULL,
        currency varchar(3) NOT NULL,
        amount numeric(17,4) NOT NULL,
        interaction_status varchar(22) NOT NULL,
        result varchar(8) NOT NULL,
        gateway_code varchar(40) NOT NULL,
        payer_outcome varchar(9),
        token_hash bytea NOT NULL,
        token_expires_at timestamptz NOT NULL,
        provider_reference varchar(64) NOT NULL,
        return_url varchar(2048) NOT NULL,
        request jsonb NOT NULL,
        provider_details jsonb,
        time_initiated timestamptz NOT NULL,
        time_redirected timestamptz,
        time_returned timestamptz,
        time_completed timestamptz,
        updated_at timestamptz NOT NULL,
        CONSTRAINT payments_pkey PRIMARY KEY (id),
        CONSTRAINT payments_transaction_key UNIQUE (merchant_id, order_id, transaction_id),
        CONSTRAINT payments_token_hash_key UNIQUE (token_hash),
        CONSTRAINT payments_provider_check CHECK (provider IN ('provider_a', 'provider_b', 'provider_c')),
        CONSTRAINT payments_operation_check CHECK (operation IN ('AUTHORIZE', 'PAY')),
        CONSTRAINT payments_confirmation_check CHECK (confirmation IN ('CONFIRM_AT_MERCHANT', 'CONFIRM_AT_PROVIDER')),
        CONSTRAINT payments_interaction_status_check CHECK (interaction_status IN ('INITIATED', 'REDIRECTED_TO_PROVIDER', 'RETURNED_TO_MERCHANT', 'COMPLETED')),
        CONSTRAINT payments_result_check CHECK (result IN ('PENDING', 'SUCCESS', 'FAILURE')),
        CONSTRAINT payments_payer_outcome_check CHECK (payer_outcome IN ('APPROVED', 'CANCELLED')),
        CONSTRAINT payments_amount_check CHECK (amount > 0),
        CONSTRAINT payments_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT payments_token_hash_check CHECK (octet_length(token_hash) = 32)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE browser_payment.simulated_provider_payments (
        reference varchar(64) NOT NULL,
        provider varchar(10) NOT NULL,
        operation varchar(9) NOT NULL,
        currency varchar(3) NOT NULL,
        amount numeric(17,4) NOT NULL,
        status varchar(10) NOT NULL,
        captured_amount numeric(17,4) NOT NULL,
        refunded_amount numeric(17,4) NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT simulated_provider_payments_pkey PRIMARY KEY (reference),
        CONSTRAINT simulated_provider_payments_provider_check CHECK (provider IN ('provider_a', 'provider_b', 'provider_c')),
        CONSTRAINT simulated_provider_payments_status_check CHECK (status IN ('CREATED', 'APPROVED', 'CANCELLED', 'ABANDONED', 'AUTHORIZED', 'CAPTURED', 'VOIDED')),
        CONSTRAINT simulated_provider_payments_operation_check CHECK (operation IN ('AUTHORIZE', 'PAY')),
        CONSTRAINT simulated_provider_payments_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT simulated_provider_payments_amounts_check CHECK (amount > 0 AND captured_amount >= 0 AND refunded_amount >= 0 AND refunded_amount <= captured_amount)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE browser_payment.provider_refunds (
        payment_id uuid NOT NULL,
        refund_transaction_id varchar(40) NOT NULL,
        amount numeric(17,4) NOT NULL,
        currency varchar(3) NOT NULL,
        result varchar(8) NOT NULL,
        gateway_code varchar(40) NOT NULL,
        provider_reference varchar(64),
        created_at timestamptz NOT NULL,
        CONSTRAINT provider_refunds_pkey PRIMARY KEY (payment_id, refund_transaction_id),
        CONSTRAINT provider_refunds_payment_fkey FOREIGN KEY (payment_id) REFERENCES browser_payment.payments (id),
        CONSTRAINT provider_refunds_amount_check CHECK (amount > 0),
        CONSTRAINT provider_refunds_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT provider_refunds_result_check CHECK (result IN ('SUCCESS', 'FAILURE'))
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE browser_payment.provider_refunds');
    await queryRunner.query('DROP TABLE browser_payment.simulated_provider_payments');
    await queryRunner.query('DROP TABLE browser_payment.payments');
  }
}
