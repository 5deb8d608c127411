import { DynamicModule, Module } from '@nestjs/common';
import { ApiPasswordPeppers } from '@gateway/crypto';
import {
  EDGE_SCHEMA,
  MemoryRequestThrottle,
  MemorySessionStore,
  MerchantRepository,
  REQUEST_THROTTLE,
  RedisRequestThrottle,
  RedisSessionStore,
  SESSION_STORE,
  ThrottleLimits,
} from '@gateway/edge/data-access';
import {
  API_PASSWORD_PEPPERS,
  ApplySession,
  UsedSecurityCodes,
  AUTHENTICATION_OPTIONS,
  AuthenticateMerchant,
  CreateSession,
  DispatchOrderOperation,
  DispatchOrderRetrieval,
  DispatchPayerJourney,
  DispatchTokenOperation,
  JSON_BODY_LIMITS,
  MERCHANT_DIRECTORY_OPTIONS,
  MerchantDirectory,
  ORDER_LOCK_OPTIONS,
  OrderLocks,
  PAYER_JOURNEY_OPTIONS,
  RetrieveSession,
  SESSION_LIFETIME,
  SessionEditor,
  SweepExpiredPayments,
  UpdateSession,
} from '@gateway/edge/domain';
import { LOCK_SERVICE, MemoryLockService, RedisLockService } from '@gateway/locking';
import { createRedisClient, databaseConnection, REDIS_CLIENT, ServiceDatabaseModule } from '@gateway/platform';
import type Redis from 'ioredis';
import { DemoMerchantProvisioner } from './demo-merchant';
import { EdgeConfig } from './edge.config';
import { EdgeReadiness } from './edge-readiness';
import { MERCHANT_CHANGES_CONNECTION, MerchantChangesListener } from './merchant-changes.listener';
import { EXPIRED_PAYMENT_SWEEP_INTERVAL_MS, ExpiredPaymentSweeper } from './expired-payment-sweeper';
import { clientCertificateAuthority } from './edge-tls';
import { CLIENT_CERTIFICATE_SOURCES, ClientCertificateReader } from './http/client-certificate.reader';
import { TrustedProxies } from './http/trusted-proxies';
import { ApiPath, VERSION_RANGE } from './http/api-path';
import { FallbackHttpController } from './http/fallback.http-controller';
import { MerchantAuthGuard } from './http/merchant-auth.guard';
import { OrderOperationsHttpController } from './http/order-operations.http-controller';
import { OrderRetrievalHttpController } from './http/order-retrieval.http-controller';
import { SessionsHttpController } from './http/sessions.http-controller';
import { PayerPagesHttpController } from './http/payer-pages.http-controller';
import { TokensHttpController } from './http/tokens.http-controller';

/**
 * api-edge: the only HTTP surface. Authenticates merchants, checks paths and bodies, takes the
 * per-order lock and routes each operation to the service that owns it.
 */
@Module({})
export class EdgeModule {
  /** `demoMerchant`: provision a test merchant on first start (standalone profile only). */
  static forRoot(config: EdgeConfig, options: { demoMerchant?: boolean } = {}): DynamicModule {
    const distributed = config.GATEWAY_PROFILE === 'distributed';
    const throttleLimits: ThrottleLimits = {
      failuresPerMerchant: config.AUTH_FAILURES_PER_MERCHANT,
      failuresPerAddress: config.AUTH_FAILURES_PER_ADDRESS,
      failureWindowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
      blockMs: config.AUTH_FAILURE_BLOCK_SECONDS * 1000,
    };
    const connection = databaseConnection(config, 'api-edge');
    return {
      module: EdgeModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          service: EDGE_SCHEMA,
          connection,
          migrateOnStart: config.DATABASE_MIGRATE_ON_START,
        }),
      ],
      // The fallback must come last: it answers whatever the others do not.
      controllers: [
        OrderOperationsHttpController,
        OrderRetrievalHttpController,
        TokensHttpController,
        SessionsHttpController,
        PayerPagesHttpController,
        FallbackHttpController,
      ],
      providers: [
        { provide: EdgeConfig, useValue: config },
        ...(distributed
          ? [
              {
                provide: REDIS_CLIENT,
                useFactory: () =>
                  createRedisClient({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, name: 'api-edge' }),
              },
              { provide: LOCK_SERVICE, useFactory: (redis: Redis) => new RedisLockService(redis), inject: [REDIS_CLIENT] },
              {
                provide: REQUEST_THROTTLE,
                useFactory: (redis: Redis) => new RedisRequestThrottle(redis, throttleLimits),
                inject: [REDIS_CLIENT],
              },
              { provide: SESSION_STORE, useFactory: (redis: Redis) => new RedisSessionStore(redis), inject: [REDIS_CLIENT] },
            ]
          : [
              { provide: LOCK_SERVICE, useValue: new MemoryLockService() },
              { provide: REQUEST_THROTTLE, useValue: new MemoryRequestThrottle(throttleLimits) },
              { provide: SESSION_STORE, useFactory: () => new MemorySessionStore() },
            ]),
        { provide: SESSION_LIFETIME, useValue: { ttlMs: config.SESSION_TTL_MS, expiredNoticeMs: config.SESSION_EXPIRED_NOTICE_MS } },
        { provide: ORDER_LOCK_OPTIONS, useValue: { waitMs: config.ORDER_LOCK_WAIT_MS, ttlMs: config.ORDER_LOCK_TTL_MS } },
        {
          provide: PAYER_JOURNEY_OPTIONS,
          useValue: { waitMs: config.PAYER_LOCK_WAIT_MS, ttlMs: config.ORDER_LOCK_TTL_MS, apiVersion: config.API_VERSION_MAX },
        },
        { provide: EXPIRED_PAYMENT_SWEEP_INTERVAL_MS, useValue: config.BROWSER_PAYMENT_SWEEP_INTERVAL_MS },
        { provide: MERCHANT_DIRECTORY_OPTIONS, useValue: { cacheTtlMs: config.MERCHANT_CACHE_TTL_MS } },
        { provide: MERCHANT_CHANGES_CONNECTION, useValue: connection },
        { provide: API_PASSWORD_PEPPERS, useValue: ApiPasswordPeppers.fromConfig(config) },
        { provide: AUTHENTICATION_OPTIONS, useValue: { requireCertificate: config.TLS_CLIENT_CERT === 'require' } },
        {
          provide: CLIENT_CERTIFICATE_SOURCES,
          useValue: {
            authority: clientCertificateAuthority(config),
            header: config.CLIENT_CERT_HEADER,
            proxies: new TrustedProxies(config.TRUSTED_PROXIES),
          },
        },
        { provide: JSON_BODY_LIMITS, useValue: { maxDepth: config.HTTP_BODY_MAX_DEPTH } },
        { provide: VERSION_RANGE, useValue: { min: config.API_VERSION_MIN, max: config.API_VERSION_MAX } },
        MerchantRepository,
        MerchantDirectory,
        MerchantChangesListener,
        AuthenticateMerchant,
        DispatchOrderOperation,
        DispatchTokenOperation,
        DispatchOrderRetrieval,
        ApplySession,
        SessionEditor,
        UsedSecurityCodes,
        CreateSession,
        UpdateSession,
        RetrieveSession,
        OrderLocks,
        DispatchPayerJourney,
        SweepExpiredPayments,
        ExpiredPaymentSweeper,
        ApiPath,
        ClientCertificateReader,
        MerchantAuthGuard,
        EdgeReadiness,
        ...(options.demoMerchant ? [DemoMerchantProvisioner] : []),
      ],
    };
  }
}
