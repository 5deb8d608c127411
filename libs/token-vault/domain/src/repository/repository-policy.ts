import {
  MerchantContext,
  TokenGenerationStrategy,
  TokenManagementStrategy,
  VerificationStrategy,
} from '@gateway/contracts';
import type { TokenSourceType } from '@gateway/token-vault/data-access';

/** A merchant's token repository as the vault applies it. */
export interface RepositoryPolicy {
  /** As stored and returned: a test merchant's repository is its live id prefixed with `Test`. */
  id: string;
  generation: TokenGenerationStrategy;
  management: TokenManagementStrategy;
  schemeTokenization: boolean;
  defaultVerificationStrategy: VerificationStrategy;
}

export function repositoryPolicy(merchant: MerchantContext): RepositoryPolicy {
  const settings = merchant.settings.tokenRepository;
  return {
    id: merchant.mode === 'TEST' ? `Test${settings.id}` : settings.id,
    generation: settings.generation,
    management: settings.management,
    schemeTokenization: settings.schemeTokenization,
    defaultVerificationStrategy: settings.defaultVerificationStrategy,
  };
}

/**
 * Whether the repository keeps one token per account identifier of this kind
 * (docs/decisions/token-vault-rules.md): Unique Card for card numbers, Unique Account
 * Identifier for every identifier (card numbers and provider_a billing agreement ids), Unique
 * Token for none.
 */
export function isUniqueAccount(management: TokenManagementStrategy, sourceType: TokenSourceType): boolean {
  switch (management) {
    case 'UNIQUE_TOKEN':
      return false;
    case 'UNIQUE_CARD':
      return sourceType === 'CARD';
    case 'UNIQUE_ACCOUNT_IDENTIFIER':
      return true;
  }
}
