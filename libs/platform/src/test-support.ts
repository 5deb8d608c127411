/**
 * Helpers for this lib's own tests, which cannot use @gateway/testing (that lib depends on this
 * one). Not exported from the lib.
 */
import { createServer } from 'node:net';
import { Module } from '@nestjs/common';
import { bootstrapApp, RunningApp } from './bootstrap';
import { createLogger } from './logging';
import { MessagingOptions } from './messaging';
import { Metrics } from './metrics';
import { PlatformModule, PlatformModuleOptions } from './platform.module';

/** The integration run's servers, read as @gateway/testing's testInfra reads them (that lib depends on this one). */
export const testServers = {
  natsUrl: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  pgAdminUrl: process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
};

/** An app of PlatformModule alone (health, metrics), its log silent, on a port of its own on 127.0.0.1. */
export async function startPlatformApp(
  service: string,
  options: Pick<PlatformModuleOptions, 'metricsListen' | 'answersMessages'> = {},
): Promise<RunningApp> {
  const logger = createLogger({ service, level: 'silent' });
  const messaging: MessagingOptions = { profile: 'standalone', servers: [], tls: null, subjectPrefix: '', requestTimeoutMs: 1_000, serviceName: service };
  @Module({ imports: [PlatformModule.forRoot({ logger, metrics: new Metrics(), messaging, healthCheckTimeoutMs: 500, ...options })] })
  class ProbeModule {}
  return bootstrapApp({ module: ProbeModule, logger, host: '127.0.0.1', port: 0, shutdownGraceMs: 2_000 });
}

/** A port nothing listens on (just now) on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** What `work` rejected with; fails the test if it succeeded. */
export async function rejectionOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}
