import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The order ledger. Money is numeric(17,4): 13 integer digits (the API's largest amount) at
 * the largest ISO 4217 exponent. Fencing tokens are numeric(20,0) because the envelope allows
 * 20 digits, more than bigint holds. No column has a default: the ledger writes every value.
 */
export class CreateOrderLedger1763900000000 implements MigrationInterface {
  name = 'CreateOrderLedger1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE order_transaction.orders (
        merchant_id varchar(40) NOT NULL,
        order_id varchar(40) NOT NULL,
        currency varchar(3) NOT NULL,
        amount numeric(17,4) NOT NULL,
        status varchar(24) NOT NULL,
        total_authorized_amount numeric(17,4) NOT NULL,
        total_captured_amount numeric(17,4) NOT NULL,
        total_refunded_amount numeric(17,4) NOT NULL,
        details jsonb NOT NULL,
        notification_url varchar(2048),
        last_fencing_token numeric(20,0) NOT NULL,
        operation_count integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT orders_pkey PRIMARY KEY (merchant_id, order_id),
        CONSTRAINT orders_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        CONSTRAINT orders_status_check CHECK (status IN ('AUTHORIZED', 'CANCELLED', 'CAPTURED', 'EXCESSIVELY_REFUNDED', 'FAILED', 'INITIATED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REFUND_REQUESTED', 'VERIFIED')),
        CONSTRAINT orders_amounts_check CHECK (amount >= 0 AND total_authorized_amount >= 0 AND total_captured_amount >= 0 AND total_refunded_amount >= 0),
        CONSTRAINT orders_operation_count_check CHECK (operation_count > 0)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE order_transaction.transactions (
        merchant_id varchar(40) NOT NULL,
        order_id varchar(40) NOT NULL,
        transaction_id varchar(40) NOT NULL,
        sequence integer NOT NULL,
        api_operation varchar(40) NOT NULL,
        type varchar(24) NOT NULL,
        amount numeric(17,4) NOT NULL,
        currency varchar(3) NOT NULL,
        result varchar(8) NOT NULL,
        gateway_code varchar(40) NOT NULL,
        target_transaction_id varchar(40),
        funding_type varchar(40),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT transactions_pkey PRIMARY KEY (merchant_id, order_id, transaction_id),
        CONSTRAINT transactions_sequence_key UNIQUE (merchant_id, order_id, sequence),
        CONSTRAINT transactions_order_fkey FOREIGN KEY (merchant_id, order_id)
          REFERENCES order_transaction.orders (merchant_id, order_id),
        CONSTRAINT transactions_type_check CHECK (type IN ('AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'CAPTURE', 'PAYMENT', 'REFUND', 'REFUND_REQUEST', 'VERIFICATION', 'VOID_AUTHORIZATION', 'VOID_CAPTURE', 'VOID_PAYMENT', 'VOID_REFUND')),
        CONSTRAINT transactions_result_check CHECK (result IN ('SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN')),
        CONSTRAINT transactions_amount_check CHECK (amount >= 0),
        CONSTRAINT transactions_currency_check CHECK (currency ~ '^[A-Z]{3}$')
      )
    `);
    await queryRunner.query(`
      CREATE TABLE order_transaction.operation_responses (
        merchant_id varchar(40) NOT NULL,
        order_id varchar(40) NOT NULL,
        transaction_id varchar(40) NOT NULL,
        api_operation varchar(40) NOT NULL,
        sequence integer NOT NULL,
        request_hash varchar(64) NOT NULL,
        body jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT operation_responses_pkey PRIMARY KEY (merchant_id, order_id, transaction_id, api_operation),
        CONSTRAINT operation_responses_sequence_key UNIQUE (merchant_id, order_id, sequence),
        CONSTRAINT operation_responses_transaction_fkey FOREIGN KEY (merchant_id, order_id, transaction_id)
          REFERENCES order_transaction.transactions (merchant_id, order_id, transaction_id),
        CONSTRAINT operation_responses_request_hash_check CHECK (request_hash ~ '^[0-9a-f]{64}$')
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_transaction.operation_responses');
    await queryRunner.query('DROP TABLE order_transaction.transactions');
    await queryRunner.query('DROP TABLE order_transaction.orders');
  }
}
