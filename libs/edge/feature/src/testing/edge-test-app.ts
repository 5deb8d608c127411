import { Module, Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { FastifyInstance } from 'fastify';
import { DataSource } from 'typeorm';
import type { MerchantMode } from '@gateway/contracts';
import { MerchantRepository } from '@gateway/edge/data-access';
import { API_PASSWORD_PEPPERS, ManageMerchants } from '@gateway/edge/domain';
import {
  AppLogger,
  bootstrapApp,
  createLogger,
  createMessageServer,
  loadConfig,
  MessagingOptions,
  Metrics,
  PlatformModule,
  RunningApp,
} from '@gateway/platform';
import { EdgeConfig } from '../edge.config';
import { EdgeModule } from '../edge.module';
import { edgeServerOptions } from '../http/configure-edge-http';

export interface TestMerchantCredentials {
  id: string;
  password: string;
  authorization: string;
}

export interface EdgeTestApp {
  running: RunningApp;
  fastify: FastifyInstance;
  createMerchant(settings?: Record<string, unknown>, mode?: MerchantMode): Promise<TestMerchantCredentials>;
  /** The admin CLI's operations on this app's merchants (disable, configure, rotate...). */
  merchants: ManageMerchants;
  close(): Promise<void>;
}

const PEPPER = 'edge-test-app-pepper-of-at-least-32-chars';

/**
 * The edge as the standalone profile runs it (in-process bus, Postgres from the integration
 * run's TEST_DATABASE_URL), for integration tests that drive it with fastify's inject.
 * `controllers` are message handlers of the test (fake services) hosted in the same app;
 * `requestTimeoutMs`, how long the edge waits for them (a test holding requests in a service
 * sets it beyond what it holds).
 */
export async function startEdgeTestApp(
  options: { logger?: AppLogger; controllers?: Type[]; env?: Record<string, string>; requestTimeoutMs?: number } = {},
): Promise<EdgeTestApp> {
  const logger = options.logger ?? createLogger({ service: 'api-edge', level: 'silent' });
  const metrics = new Metrics();
  const config = loadConfig(EdgeConfig, {
    GATEWAY_PROFILE: 'standalone',
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: '2',
    API_PASSWORD_PEPPER: PEPPER,
    MERCHANT_CACHE_TTL_MS: '0',
    ...options.env,
  });
  const messaging: MessagingOptions = {
    profile: 'standalone',
    servers: [],
    subjectPrefix: '',
    requestTimeoutMs: options.requestTimeoutMs ?? 2_000,
    serviceName: 'api-edge',
  };

  @Module({
    imports: [PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 500, answersMessages: false }), EdgeModule.forRoot(config)],
    controllers: options.controllers ?? [],
  })
  class EdgeTestModule {}

  const running = await bootstrapApp({
    module: EdgeTestModule,
    logger,
    host: '127.0.0.1',
    port: 0,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 1_000),
    ...edgeServerOptions(config, logger, metrics),
  });
  const merchants = new ManageMerchants(
    MerchantRepository.over(running.app.get<DataSource>(getDataSourceToken('edge') as string)),
    running.app.get(API_PASSWORD_PEPPERS),
  );
  return {
    running,
    fastify: (running.app as NestFastifyApplication).getHttpAdapter().getInstance() as unknown as FastifyInstance,
    merchants,
    async createMerchant(settings = {}, mode = 'TEST') {
      const issued = await merchants.create({ name: 'Test merchant', mode, settings });
      return {
        id: issued.merchant.id,
        password: issued.password,
        authorization: `Basic ${Buffer.from(`merchant.${issued.merchant.id}:${issued.password}`).toString('base64')}`,
      };
    },
    close: () => running.shutdown('test done'),
  };
}
