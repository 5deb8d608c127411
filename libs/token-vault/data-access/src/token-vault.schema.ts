import type { ServiceSchema } from '@gateway/platform';
import { DataKeyEntity } from './data-key.entity';
import { CreateTokenVault1763900000000 } from './migrations/1763900000000-create-token-vault';
import { WidenSchemeTokenOutcome1764100000000 } from './migrations/1764100000000-widen-scheme-token-outcome';
import { ValidateSchemeTokenOutcome1764100000001 } from './migrations/1764100000001-validate-scheme-token-outcome';
import { TokenChecksAsConstants1765100000000 } from './migrations/1765100000000-token-checks-as-constants';
import { ValidateTokenChecks1765100000001 } from './migrations/1765100000001-validate-token-checks';
import { TokenEntity } from './token.entity';

/**
 * The `token_vault` schema: owned by token-vault, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs.
 */
export const TOKEN_VAULT_SCHEMA: ServiceSchema = {
  schema: 'token_vault',
  entities: [DataKeyEntity, TokenEntity],
  migrations: [
    CreateTokenVault1763900000000,
    WidenSchemeTokenOutcome1764100000000,
    ValidateSchemeTokenOutcome1764100000001,
    TokenChecksAsConstants1765100000000,
    ValidateTokenChecks1765100000001,
  ],
};
