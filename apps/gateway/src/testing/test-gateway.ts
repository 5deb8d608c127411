import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { DynamicModule, Module } from '@nestjs/common';
import { BrowserPaymentConfig, BrowserPaymentModule } from '@gateway/browser-payment/feature';
import type { JsonObject, MerchantContext, MerchantMode } from '@gateway/contracts';
import { MerchantRepository } from '@gateway/edge/data-access';
import { ManageMerchants, toMerchantContext, API_PASSWORD_PEPPERS } from '@gateway/edge/domain';
import { EdgeConfig, EdgeModule, edgeServerOptions } from '@gateway/edge/feature';
import { OrderTransactionConfig, OrderTransactionModule } from '@gateway/order-transaction/feature';
import {
  bootstrapApp,
  createLogger,
  createMessageServer,
  loadConfig,
  MessageBus,
  messagingOptions,
  Metrics,
  PlatformModule,
  REDIS_CLIENT,
  RunningApp,
} from '@gateway/platform';
import { runKey, testInfra, testRequestHashKey, waitFor } from '@gateway/testing';
import { TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';

const PEPPER = 'int-test-pepper-0123456789abcdef0123456789';

/** Redirect URLs start with this: the payer-facing address, not the test server's. */
export const PUBLIC_BASE_URL = 'https://pay.gateway.test';

export interface TestGateway {
  running: RunningApp;
  bus: MessageBus;
  manage: ManageMerchants;
  newMerchant(options?: NewMerchantOptions): Promise<TestGatewayMerchant>;
  /** An HTTP call to the gateway; `url` may be a path or a URL on PUBLIC_BASE_URL. */
  fetch(url: string, init?: RequestInit): Promise<GatewayResponse>;
}

export interface NewMerchantOptions {
  mode?: MerchantMode;
  name?: string;
  /** The start of the merchant id (a random suffix follows). */
  idPrefix?: string;
  settings?: Record<string, unknown>;
}

export interface TestGatewayMerchant {
  id: string;
  /** The merchant as the edge hands it to services (for messages a test sends itself). */
  context: MerchantContext;
  authorization: string;
  /** `/api/rest/version/<v>/merchant/<id>` */
  base(version?: number): string;
}

export interface GatewayResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or an empty object for HTML and empty answers. */
  body: JsonObject;
}

export interface TestGatewayOptions {
  /** The service modules beside the edge, loaded from the configuration (`env` over the defaults here). */
  services(config: Record<string, string>): DynamicModule[];
  env?: Record<string, string>;
  /**
   * The edge's own configuration over `env` (e.g. the distributed profile's Redis for sessions,
   * locks and throttling); the bus stays the in-process one of `env`.
   */
  edgeEnv?: Record<string, string>;
  /** What `newMerchant` gives when not told otherwise. */
  merchantDefaults?: Pick<NewMerchantOptions, 'name' | 'idPrefix'>;
}

/**
 * The card path behind the edge: order-transaction and the token vault (with this run's vault
 * keys), for `startTestGateway({ ...CARD_SERVICES, ... })`.
 */
export const CARD_SERVICES: Pick<TestGatewayOptions, 'services' | 'env'> = {
  services: (config) => [
    OrderTransactionModule.forRoot(loadConfig(OrderTransactionConfig, config)),
    TokenVaultModule.forRoot(loadConfig(TokenVaultConfig, config)),
  ],
  env: { VAULT_MASTER_KEYS: `int-1:${runKey('master-1')}`, VAULT_FINGERPRINT_KEY: runKey('fingerprint') },
};

/** The distributed profile's edge: payment sessions, order locks and the throttle in this run's Redis. */
export function redisEdgeEnv(): Record<string, string> {
  return { GATEWAY_PROFILE: 'distributed', REDIS_URL: testInfra.redisUrl, REDIS_KEY_PREFIX: process.env.TEST_REDIS_PREFIX ?? '' };
}

/**
 * The card path (CARD_SERVICES) behind an edge keeping payment sessions in this run's Redis
 * (redisEdgeEnv), once the edge's Redis connection is ready: the session specs' gateway.
 */
export async function startSessionGateway(merchantDefaults: TestGatewayOptions['merchantDefaults']): Promise<TestGateway> {
  const gateway = await startTestGateway({ ...CARD_SERVICES, edgeEnv: redisEdgeEnv(), merchantDefaults });
  const redis = gateway.running.app.get<Redis>(REDIS_CLIENT);
  await waitFor(async () => redis.status === 'ready', { what: "the edge's Redis connection" });
  return gateway;
}

/** `merchant`'s call to the API at `path` under its base (`merchant.base()`), with a JSON body if given. */
export function callAs(gateway: TestGateway, merchant: TestGatewayMerchant, method: string, path: string, body?: JsonObject): Promise<GatewayResponse> {
  return gateway.fetch(`${merchant.base()}${path}`, {
    method,
    headers: { authorization: merchant.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/** `response.cardSecurityCode.gatewayCode`: what the acquirer made of the security code it got. */
export function securityCodeCheck(response: GatewayResponse): unknown {
  const cardSecurityCode = (response.body.response as JsonObject | undefined)?.cardSecurityCode as JsonObject | undefined;
  return cardSecurityCode?.gatewayCode;
}

/**
 * The edge and the given services in one Nest app on the in-process bus (the standalone
 * profile's wiring) against the integration run's Postgres, driven over real HTTP.
 */
export async function startTestGateway({ services, env = {}, edgeEnv, merchantDefaults = {} }: TestGatewayOptions): Promise<TestGateway> {
  const config = {
    GATEWAY_PROFILE: 'standalone',
    DATABASE_URL: process.env.TEST_DATABASE_URL ?? '',
    DATABASE_POOL_SIZE: '4',
    API_PASSWORD_PEPPER: PEPPER,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    MERCHANT_CACHE_TTL_MS: '0',
    PUBLIC_BASE_URL,
    REQUEST_HASH_KEY: testRequestHashKey(),
    ...env,
  };
  const edge = loadConfig(EdgeConfig, { ...config, ...edgeEnv });
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const metrics = new Metrics();
  const messaging = messagingOptions(edgeEnv ? loadConfig(EdgeConfig, config) : edge, 'gateway');
  @Module({
    imports: [
      PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 1_000 }),
      EdgeModule.forRoot(edge),
      ...services(config),
    ],
  })
  class TestGatewayModule {}
  const running = await bootstrapApp({
    module: TestGatewayModule,
    logger,
    host: edge.HTTP_HOST,
    port: edge.HTTP_PORT,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
    ...edgeServerOptions(edge, logger, metrics),
  });
  const manage = new ManageMerchants(running.app.get(MerchantRepository), running.app.get(API_PASSWORD_PEPPERS));
  return {
    running,
    bus: running.app.get(MessageBus),
    manage,
    async newMerchant(given = {}) {
      const options = { ...merchantDefaults, ...given };
      const id = `${options.idPrefix ?? 'INTGW'}${randomBytes(5).toString('hex').toUpperCase()}`;
      const issued = await manage.create({
        id,
        name: options.name ?? 'Test shop',
        mode: options.mode ?? 'TEST',
        ...(options.settings ? { settings: options.settings } : {}),
      });
      return {
        id,
        context: toMerchantContext(issued.merchant),
        authorization: `Basic ${Buffer.from(`merchant.${id}:${issued.password}`).toString('base64')}`,
        base: (version = 100) => `/api/rest/version/${version}/merchant/${id}`,
      };
    },
    async fetch(url, init = {}) {
      const path = url.startsWith(PUBLIC_BASE_URL) ? url.slice(PUBLIC_BASE_URL.length) : url;
      const response = await fetch(`${running.url}${path}`, { redirect: 'manual', ...init });
      const text = await response.text();
      let body: JsonObject = {};
      if (response.headers.get('content-type')?.startsWith('application/json')) {
        body = JSON.parse(text) as JsonObject;
      }
      return { status: response.status, headers: response.headers, text, body };
    },
  };
}

/** The edge, the order ledger and browser-payment. */
export function startBrowserPaymentGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  return startTestGateway({
    services: (config) => [
      OrderTransactionModule.forRoot(loadConfig(OrderTransactionConfig, config)),
      BrowserPaymentModule.forRoot(loadConfig(BrowserPaymentConfig, config)),
    ],
    env,
    merchantDefaults: { name: 'Browser payment shop', idPrefix: 'INTBP' },
  });
}

/** The order of the browser payment tests' initiates: 30.00 EUR for two books, sub-totals and items consistent. */
export function twoBooksOrder(): JsonObject {
  return {
    amount: '30.00',
    currency: 'EUR',
    description: 'Two books',
    itemAmount: '25.00',
    shippingAndHandlingAmount: '5.00',
    item: [
      { name: 'Book one', quantity: '1', unitPrice: '10.00' },
      { name: 'Book two', quantity: '1', unitPrice: '15.00' },
    ],
  };
}
