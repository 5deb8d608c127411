import { DatabaseConfig } from '@gateway/platform';

/** browser-payment's configuration, read once at boot (see docs/operations/configuration.md). */
export class BrowserPaymentConfig extends DatabaseConfig {
  override HTTP_PORT = 8083;
}
