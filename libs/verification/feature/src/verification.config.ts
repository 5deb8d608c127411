import { DatabaseConfig } from '@gateway/platform';

/** verification's configuration, read once at boot (see docs/operations/configuration.md). */
export class VerificationConfig extends DatabaseConfig {
  override HTTP_PORT = 8084;
}
