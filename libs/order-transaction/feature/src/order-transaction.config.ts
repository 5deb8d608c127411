import { DatabaseConfig } from '@gateway/platform';

/** order-transaction's configuration, read once at boot (see docs/operations/configuration.md). */
export class OrderTransactionConfig extends DatabaseConfig {
  override HTTP_PORT = 8082;
}
