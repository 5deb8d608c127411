import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateTokenVault1763900000000 implements MigrationInterface {
  name = 'CreateTokenVault1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE token_vault.data_keys (
        id integer PRIMARY KEY,
        state varchar(12) NOT NULL,
        master_key_id varchar(32) NOT NULL,
        wrapped_key bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        CONSTRAINT data_keys_state_check CHECK (state IN ('ACTIVE', 'DECRYPT_ONLY')),
        CONSTRAINT data_keys_retired_check CHECK ((state = 'ACTIVE') = (retired_at IS NULL))
      )
    `);
    // At most one ACTIVE key: two replicas creating the first key at once cannot both win.
    await queryRunner.query(`CREATE UNIQUE INDEX data_keys_one_active_idx ON token_vault.data_keys (state) WHERE state = 'ACTIVE'`);
    await queryRunner.query(`
      CREATE TABLE token_vault.tokens (
        id uuid PRIMARY KEY,
        repository_id varchar(16) NOT NULL,
        token varchar(40) NOT NULL,
        status varchar(7) NOT NULL,
        source_type varchar(10) NOT NULL,
        verification_strategy varchar(8) NOT NULL,
        data_key_id integer NOT NULL,
        account_identifier bytea NOT NULL,
        fingerprint bytea NOT NULL,
        unique_account boolean NOT NULL,
        card_number_masked varchar(19),
        card_expiry varchar(4),
        card_brand varchar(20),
        card_scheme varchar(20),
        card_funding_method varchar(8),
        provider_a_agreement jsonb,
        provider_a_details bytea,
        scheme_token_outcome varchar(64),
        scheme_token_reference varchar(64),
        scheme_token bytea,
        created_by varchar(40) NOT NULL,
        updated_by varchar(40) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        version integer NOT NULL DEFAULT 1,
        CONSTRAINT tokens_repository_token_key UNIQUE (repository_id, token),
        CONSTRAINT tokens_data_key_fk FOREIGN KEY (data_key_id) REFERENCES token_vault.data_keys (id) ON DELETE RESTRICT,
        CONSTRAINT tokens_token_check CHECK (token ~ '^[0-9A-Za-z]{1,40}$'),
        CONSTRAINT tokens_status_check CHECK (status IN ('VALID', 'INVALID')),
        CONSTRAINT tokens_source_type_check CHECK (source_type IN ('CARD', 'PROVIDER_A')),
        CONSTRAINT tokens_verification_strategy_check CHECK (verification_strategy IN ('ACQUIRER', 'BASIC', 'NONE')),
        CONSTRAINT tokens_fingerprint_check CHECK (octet_length(fingerprint) = 32),
        CONSTRAINT tokens_card_number_masked_check CHECK (card_number_masked ~ '^[0-9]{0,6}x{3,}[0-9]{4}$'),
        CONSTRAINT tokens_card_expiry_check CHECK (card_expiry ~ '^(0[1-9]|1[0-2])[0-9]{2}$'),
        CONSTRAINT tokens_card_check CHECK ((source_type = 'CARD') = (card_number_masked IS NOT NULL)),
        CONSTRAINT tokens_provider_a_check CHECK ((source_type = 'PROVIDER_A') = (provider_a_agreement IS NOT NULL))
      )
    `);
    // Unique Card / Unique Account Identifier: one token per account identifier in a repository,
    // for the rows the repository's strategy makes unique.
    await queryRunner.query(
      `CREATE UNIQUE INDEX tokens_unique_account_idx ON token_vault.tokens (repository_id, fingerprint) WHERE unique_account`,
    );
    // Key rotation finds the rows still sealed under a retired key.
    await queryRunner.query(`CREATE INDEX tokens_data_key_idx ON token_vault.tokens (data_key_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE token_vault.tokens');
    await queryRunner.query('DROP TABLE token_vault.data_keys');
  }
}
