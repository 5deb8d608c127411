import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { BrowserPaymentConfig, BrowserPaymentModule } from '@gateway/browser-payment/feature';
import type { JsonObject, MerchantMode } from '@gateway/contracts';
import { MerchantRepository } from '@gateway/edge/data-access';
import { ManageMerchants } from '@gateway/edge/domain';
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
  RunningApp,
} from '@gateway/platform';

const PEPPER = 'int-test-pepper-0123456789abcdef0123456789';

/** Redirect URLs start with this: the payer-facing address, not the test server's. */
export const PUBLIC_BASE_URL = 'https://pay.gateway.test';

export interface TestGateway {
  running: RunningApp;
  bus: MessageBus;
  newMerchant(options?: { mode?: MerchantMode; name?: string }): Promise<TestGatewayMerchant>;
  /** An HTTP call to the gateway; `url` may be a path or a URL on PUBLIC_BASE_URL. */
  fetch(url: string, init?: RequestInit): Promise<GatewayResponse>;
}

export interface TestGatewayMerchant {
  id: string;
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

/**
 * The edge, the order ledger and browser-payment in one Nest app on the in-process bus (the
 * standalone profile's wiring) against the integration run's Postgres, driven over real HTTP.
 */
export async function startBrowserPaymentGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const config = {
    GATEWAY_PROFILE: 'standalone',
    DATABASE_URL: process.env.TEST_DATABASE_URL ?? '',
    DATABASE_POOL_SIZE: '4',
    API_PASSWORD_PEPPER: PEPPER,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    MERCHANT_CACHE_TTL_MS: '0',
    PUBLIC_BASE_URL,
    ...env,
  };
  const edge = loadConfig(EdgeConfig, config);
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const metrics = new Metrics();
  const messaging = messagingOptions(edge, 'gateway');
  @Module({
    imports: [
      PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 1_000 }),
      EdgeModule.forRoot(edge),
      OrderTransactionModule.forRoot(loadConfig(OrderTransactionConfig, config)),
      BrowserPaymentModule.forRoot(loadConfig(BrowserPaymentConfig, config)),
    ],
  })
  class BrowserPaymentTestModule {}
  const running = await bootstrapApp({
    module: BrowserPaymentTestModule,
    logger,
    host: edge.HTTP_HOST,
    port: edge.HTTP_PORT,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
    ...edgeServerOptions(edge, logger, metrics),
  });
  const manage = new ManageMerchants(running.app.get(MerchantRepository), PEPPER);
  return {
    running,
    bus: running.app.get(MessageBus),
    async newMerchant(options = {}) {
      const id = `INTBP${randomBytes(5).toString('hex').toUpperCase()}`;
      const issued = await manage.create({ id, name: options.name ?? 'Browser payment shop', mode: options.mode ?? 'TEST' });
      return {
        id,
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
