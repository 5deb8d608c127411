import type { ServiceSchema } from '@gateway/platform';

/**
 * The `verification` schema: owned by verification, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs. Empty so far, and kept: it is where verification's own data
 * goes (docs/decisions/verification-schema-kept.md).
 */
export const VERIFICATION_SCHEMA: ServiceSchema = {
  schema: 'verification',
  entities: [],
  migrations: [],
};
