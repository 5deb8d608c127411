import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';
import { oneOfCheck } from '@gateway/platform';
import { DataKeyEntity } from './data-key.entity';

export const TOKEN_STATUSES = ['VALID', 'INVALID'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];
export const TOKEN_SOURCE_TYPES = ['CARD', 'PROVIDER_A'] as const;
export type TokenSourceType = (typeof TOKEN_SOURCE_TYPES)[number];
export const STORED_VERIFICATION_STRATEGIES = ['ACQUIRER', 'BASIC', 'NONE'] as const;
export type StoredVerificationStrategy = (typeof STORED_VERIFICATION_STRATEGIES)[number];

/**
 * A token in a repository. What identifies the instrument (the card number, or a provider_a
 * billing agreement id), provider_a payer and shipping details and the scheme token are
 * stored only sealed under the data key `data_key_id` names (all sealed columns of a row under
 * one key; the foreign key keeps that key from being destroyed while the row uses it). Lookups
 * for the uniqueness rules go through `fingerprint`, a keyed HMAC. Only the masked number is
 * in clear, and a check makes sure it is masked.
 *
 * Deliberately absent (spec token rule 7, PCI DSS 3.2): security code, name on card, billing
 * address, customer details.
 */
@Entity({ name: 'tokens' })
@Unique('tokens_repository_token_key', ['repositoryId', 'token'])
@Index('tokens_unique_account_idx', ['repositoryId', 'fingerprint'], { unique: true, where: 'unique_account' })
@Index('tokens_data_key_idx', ['dataKeyId'])
@Check('tokens_token_check', `token ~ '^[0-9A-Za-z]{1,40}$'`)
@Check('tokens_status_check', oneOfCheck('status', TOKEN_STATUSES))
@Check('tokens_source_type_check', oneOfCheck('source_type', TOKEN_SOURCE_TYPES))
@Check('tokens_verification_strategy_check', oneOfCheck('verification_strategy', STORED_VERIFICATION_STRATEGIES))
@Check('tokens_fingerprint_check', `octet_length(fingerprint) = 32`)
@Check('tokens_card_number_masked_check', `card_number_masked ~ '^[0-9]{0,6}x{3,}[0-9]{4}$'`)
@Check('tokens_card_expiry_check', `card_expiry ~ '^(0[1-9]|1[0-2])[0-9]{2}$'`)
@Check('tokens_card_check', `(source_type = 'CARD') = (card_number_masked IS NOT NULL)`)
@Check('tokens_provider_a_check', `(source_type = 'PROVIDER_A') = (provider_a_agreement IS NOT NULL)`)
@Check('tokens_scheme_token_outcome_check', `scheme_token_outcome ~ '^SCHEME_TOKENIZATION_[A-Z_]+$'`)
export class TokenEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  /** `Test` + the live id for test merchants. */
  @Column({ name: 'repository_id', type: 'varchar', length: 16 })
  repositoryId: string;

  @Column({ type: 'varchar', length: 40 })
  token: string;

  @Column({ type: 'varchar', length: 7 })
  status: TokenStatus;

  @Column({ name: 'source_type', type: 'varchar', length: 10 })
  sourceType: TokenSourceType;

  /** The strategy the last successful save was verified with. */
  @Column({ name: 'verification_strategy', type: 'varchar', length: 8 })
  verificationStrategy: StoredVerificationStrategy;

  @Column({ name: 'data_key_id', type: 'integer' })
  dataKeyId: number;

  @ManyToOne(() => DataKeyEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'data_key_id', foreignKeyConstraintName: 'tokens_data_key_fk' })
  dataKey?: DataKeyEntity;

  /** Sealed card number or provider_a billing agreement id. */
  @Column({ name: 'account_identifier', type: 'bytea' })
  accountIdentifier: Buffer;

  /** HMAC of the account identifier, scoped to the repository. */
  @Column({ type: 'bytea' })
  fingerprint: Buffer;

  /** The repository keeps one token per account identifier of this kind (Unique Card / Account Identifier). */
  @Column({ name: 'unique_account', type: 'boolean' })
  uniqueAccount: boolean;

  @Column({ name: 'card_number_masked', type: 'varchar', length: 19, nullable: true })
  cardNumberMasked: string | null;

  /** MMYY */
  @Column({ name: 'card_expiry', type: 'varchar', length: 4, nullable: true })
  cardExpiry: string | null;

  @Column({ name: 'card_brand', type: 'varchar', length: 20, nullable: true })
  cardBrand: string | null;

  @Column({ name: 'card_scheme', type: 'varchar', length: 20, nullable: true })
  cardScheme: string | null;

  @Column({ name: 'card_funding_method', type: 'varchar', length: 8, nullable: true })
  cardFundingMethod: string | null;

  /** Billing agreement terms (cardinality, name, description): no personal data. */
  @Column({ name: 'provider_a_agreement', type: 'jsonb', nullable: true })
  providerAAgreement: Record<string, string> | null;

  /** Sealed JSON: provider_a payer details and the shipping address and contact. */
  @Column({ name: 'provider_a_details', type: 'bytea', nullable: true })
  providerADetails: Buffer | null;

  /** The last scheme tokenization outcome (a SCHEME_TOKENIZATION_* code). */
  @Column({ name: 'scheme_token_outcome', type: 'varchar', length: 80, nullable: true })
  schemeTokenOutcome: string | null;

  /** The token service provider's reference of the scheme token. */
  @Column({ name: 'scheme_token_reference', type: 'varchar', length: 64, nullable: true })
  schemeTokenReference: string | null;

  /** Sealed JSON: the scheme token number and expiry. */
  @Column({ name: 'scheme_token', type: 'bytea', nullable: true })
  schemeToken: Buffer | null;

  @Column({ name: 'created_by', type: 'varchar', length: 40 })
  createdBy: string;

  @Column({ name: 'updated_by', type: 'varchar', length: 40 })
  updatedBy: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** Bumped by every write: a save that read version n writes only if the row is still at n. */
  @Column({ type: 'integer', default: 1 })
  version: number;
}
