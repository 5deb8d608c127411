import type { ServiceSchema } from '@gateway/platform';

/**
 * The `token_vault` schema: owned by token-vault, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs.
 */
export const TOKEN_VAULT_SCHEMA: ServiceSchema = {
  schema: 'token_vault',
  entities: [],
  migrations: [],
};
