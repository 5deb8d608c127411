import type { ServiceSchema } from '@gateway/platform';

/**
 * The `order_transaction` schema: owned by order-transaction, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs.
 */
export const ORDER_TRANSACTION_SCHEMA: ServiceSchema = {
  schema: 'order_transaction',
  entities: [],
  migrations: [],
};
