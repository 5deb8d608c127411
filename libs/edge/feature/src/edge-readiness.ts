import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { PING_SUBJECTS, PingReply } from '@gateway/contracts';
import { MessageBus, pingRedis, REDIS_CLIENT, ReadinessChecks } from '@gateway/platform';
import type Redis from 'ioredis';
import { EdgeConfig } from './edge.config';

/**
 * The edge is ready when its own dependencies answer and so does every service: a request
 * it accepts must have somewhere to go.
 */
@Injectable()
export class EdgeReadiness implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly checks: ReadinessChecks,
    private readonly bus: MessageBus,
    private readonly config: EdgeConfig,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {}

  onModuleInit(): void {
    if (this.redis) {
      const redis = this.redis;
      this.checks.add('redis', () => pingRedis(redis));
    }
    this.checks.add('services', async () => {
      const timeoutMs = this.config.HEALTH_CHECK_TIMEOUT_MS;
      const results = await Promise.allSettled(
        Object.entries(PING_SUBJECTS).map(([service, subject]) =>
          this.bus.request<PingReply>(subject, {}, { timeoutMs }).then(
            () => service,
            () => Promise.reject(new Error(service)),
          ),
        ),
      );
      const down = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message);
      if (down.length > 0) {
        throw new Error(`not answering: ${down.join(', ')}`);
      }
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
