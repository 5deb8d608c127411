import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Captures of browser payments initiated with AUTHORIZE (docs/decisions/browser-payment-journey.md,
 * amendment 2026-11-26, captures and voids): the gateway's record of each capture it made at the
 * provider for the ledger (`provider_captures`, as `provider_refunds`), and the simulators' own
 * (`simulated_provider_captures`, one per (payment, key), as `simulated_provider_refunds`). New
 * tables: their keys and constraints cost nothing on a live database. Each foreign key takes a
 * brief lock on the table it references and checks no row.
 */
export class CreateProviderCaptures1764800000000 implements MigrationInterface {
  name = 'CreateProviderCaptures1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE browser_payment.provider_captures (
        payment_id uuid NOT NULL,
        capture_transaction_id varchar(40) NOT NULL,
        amount numeric(17,4) NOT NULL,
        currency varchar(3) NOT NULL,
        result varchar(8) NOT NULL,
        gateway_code varchar(40) NOT NULL,
        provider_reference varchar(64),
        created_at timestamptz NOT NULL,
        CONSTRAINT provider_captures_pkey PRIMARY KEY (payment_id, capture_transaction_id),
        CONSTRAINT provider_captures_payment_fkey FOREIGN KEY (payment_id) REFERENCES browser_payment.payments (id),
        CONSTRAINT provider_captures_amount_check CHECK (amount > 0),
        CONSTRAINT provider_captures_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT provider_captures_result_check CHECK (result IN ('SUCCESS', 'FAILURE'))
      )
    `);
    await queryRunner.query(`
      CREATE TABLE browser_payment.simulated_provider_captures (
        payment_reference varchar(64) NOT NULL,
        capture_id varchar(40) NOT NULL,
        amount numeric(17,4) NOT NULL,
        currency varchar(3) NOT NULL,
        approved boolean NOT NULL,
        provider_code varchar(40) NOT NULL,
        reference varchar(64),
        created_at timestamptz NOT NULL,
        CONSTRAINT simulated_provider_captures_pkey PRIMARY KEY (payment_reference, capture_id),
        CONSTRAINT simulated_provider_captures_payment_fkey FOREIGN KEY (payment_reference)
          REFERENCES browser_payment.simulated_provider_payments (reference),
        CONSTRAINT simulated_provider_captures_amount_check CHECK (amount > 0),
        CONSTRAINT simulated_provider_captures_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT simulated_provider_captures_provider_code_check
          CHECK (provider_code IN ('CAPTURED', 'CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT', 'NOT_AUTHORIZED')),
        CONSTRAINT simulated_provider_captures_outcome_check
          CHECK (approved = (provider_code = 'CAPTURED') AND approved = (reference IS NOT NULL))
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE browser_payment.simulated_provider_captures');
    await queryRunner.query('DROP TABLE browser_payment.provider_captures');
  }
}
