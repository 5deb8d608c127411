import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The simulators' refunds, one per (payment, key), each with the outcome it was answered
 * (docs/decisions/browser-payment-journey.md, amendment 2026-11-26, later): a repeated refund
 * is answered from here and moves nothing. A new table: its key and constraints cost nothing
 * on a live database. The foreign key takes a brief lock on simulated_provider_payments and
 * checks no row.
 */
export class CreateSimulatedProviderRefunds1764700000000 implements MigrationInterface {
  name = 'CreateSimulatedProviderRefunds1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE browser_payment.simulated_provider_refunds (
        payment_reference varchar(64) NOT NULL,
        refund_id varchar(40) NOT NULL,
        amount numeric(17,4) NOT NULL,
        currency varchar(3) NOT NULL,
        approved boolean NOT NULL,
        provider_code varchar(40) NOT NULL,
        reference varchar(64),
        created_at timestamptz NOT NULL,
        CONSTRAINT simulated_provider_refunds_pkey PRIMARY KEY (payment_reference, refund_id),
        CONSTRAINT simulated_provider_refunds_payment_fkey FOREIGN KEY (payment_reference)
          REFERENCES browser_payment.simulated_provider_payments (reference),
        CONSTRAINT simulated_provider_refunds_amount_check CHECK (amount > 0),
        CONSTRAINT simulated_provider_refunds_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT simulated_provider_refunds_provider_code_check
          CHECK (provider_code IN ('REFUNDED', 'REFUND_EXCEEDS_CAPTURED_AMOUNT', 'NOTHING_CAPTURED')),
        CONSTRAINT simulated_provider_refunds_outcome_check
          CHECK (approved = (provider_code = 'REFUNDED') AND approved = (reference IS NOT NULL))
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE browser_payment.simulated_provider_refunds');
  }
}
