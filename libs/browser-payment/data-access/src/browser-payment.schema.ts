import type { ServiceSchema } from '@gateway/platform';

/**
 * The `browser_payment` schema: owned by browser-payment, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs.
 */
export const BROWSER_PAYMENT_SCHEMA: ServiceSchema = {
  schema: 'browser_payment',
  entities: [],
  migrations: [],
};
