import { IsInt, Max, Min } from 'class-validator';
import { DatabaseConfig, Describe, IntVar } from '@gateway/platform';

/** order-transaction's configuration, read once at boot (see docs/operations/configuration.md). */
export class OrderTransactionConfig extends DatabaseConfig {
  override HTTP_PORT = 8082;

  @Describe(
    'Longest wait for a refund\'s money movement through another service (the token vault\'s acquirer call, browser-payment\'s provider refund). Keep it well below the edge\'s NATS_REQUEST_TIMEOUT_MS: a refund whose call timed out is recorded as UNKNOWN and answered before the edge stops waiting.',
  )
  @IntVar()
  @IsInt()
  @Min(100)
  @Max(120_000)
  REFUND_CALL_TIMEOUT_MS = 5_000;
}
