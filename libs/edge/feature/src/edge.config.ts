import { IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { DatabaseConfig, Describe, IntVar } from '@gateway/platform';

/** api-edge's configuration, read once at boot (see docs/operations/configuration.md). */
export class EdgeConfig extends DatabaseConfig {
  @Describe('Redis URL for per-order locks, payment sessions and throttling (distributed profile).')
  @IsString()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  @Describe('Prefix of every Redis key; separates deployments (and test runs) sharing a Redis.')
  @IsString()
  @Matches(/^[A-Za-z0-9:_-]{0,64}$/)
  REDIS_KEY_PREFIX = 'gw:';

  @Describe('Server-side key of the API password hashes. At least 32 characters; changing it invalidates every password.', {
    secret: true,
  })
  @IsString()
  @MinLength(32)
  API_PASSWORD_PEPPER: string = undefined as unknown as string;

  @Describe('Lowest API version accepted in request paths.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(1000)
  API_VERSION_MIN = 29;

  @Describe('Highest API version accepted in request paths.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(1000)
  API_VERSION_MAX = 100;

  @Describe('How long an order operation waits for the order\'s lock before answering LOCK_FAILURE.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(10_000)
  ORDER_LOCK_WAIT_MS = 100;

  @Describe('How long a payer\'s browser-payment step (leaving for or coming back from the provider) waits for the order\'s lock before an error page.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(10_000)
  PAYER_LOCK_WAIT_MS = 2_000;

  @Describe('Lease of the per-order lock. Longer than NATS_REQUEST_TIMEOUT_MS, so a live operation never loses its lock.')
  @IntVar()
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  ORDER_LOCK_TTL_MS = 30_000;

  @Describe('How long a merchant profile is cached by each edge replica; admin changes apply within this time.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(600_000)
  MERCHANT_CACHE_TTL_MS = 5_000;

  @Describe('Largest accepted request body, in bytes.')
  @IntVar()
  @IsInt()
  @Min(1_024)
  @Max(10_485_760)
  HTTP_BODY_LIMIT_BYTES = 65_536;

  @Describe('Address of the gateway as payers\' browsers reach it (redirect URLs of browser payments).')
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+(:\d+)?$/, { message: 'must be an http(s) origin without a path' })
  PUBLIC_BASE_URL = 'http://127.0.0.1:8080';

  @Describe('Comma-separated addresses of trusted proxies whose X-Forwarded-For is believed; empty trusts none.')
  @IsOptional()
  @IsString()
  TRUSTED_PROXIES = '';
}
