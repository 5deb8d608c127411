import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { pingRedis, REDIS_CLIENT, ReadinessChecks } from '@gateway/platform';
import type Redis from 'ioredis';

/**
 * The edge is ready when what every request needs answers: its database and NATS (the
 * platform's checks) and Redis (locks, sessions, throttles). Not the services behind it: a
 * service that is down, or slow to answer a ping, would take every edge replica out of the
 * Service at once, the whole API down for what only some operations need. A request for a
 * service that does not answer is a 503 SERVER_BUSY of its own (docs/decisions/edge-readiness.md).
 */
@Injectable()
export class EdgeReadiness implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly checks: ReadinessChecks,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {}

  onModuleInit(): void {
    if (this.redis) {
      const redis = this.redis;
      this.checks.add('redis', () => pingRedis(redis));
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
