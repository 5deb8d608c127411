import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { NotificationOutbox } from '@gateway/order-transaction/data-access';
import { DispatchNotifications } from '@gateway/order-transaction/domain';
import { APP_LOGGER, AppLogger, Metrics } from '@gateway/platform';
import { Gauge } from 'prom-client';

export const DISPATCHER_LOOP = Symbol('DISPATCHER_LOOP');

export interface DispatcherLoopOptions {
  workers: number;
  pollIntervalMs: number;
  retentionMs: number;
}

const PURGE_EVERY_MS = 3_600_000;
const PURGE_BATCH = 5_000;

/**
 * The webhook dispatcher's loop (dispatch and all modes): `workers` loops each claim a batch,
 * deliver it and claim the next at once while work is due, or sleep a poll interval when none
 * is. On shutdown the loops finish the batch in hand (bounded by the delivery timeout) and stop.
 * Exposes gateway_webhook_outbox_depth, read from the outbox when Prometheus scrapes.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly dispatch: DispatchNotifications,
    private readonly outbox: NotificationOutbox,
    @Inject(DISPATCHER_LOOP) private readonly options: DispatcherLoopOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.registerDepthGauge();
    const deliveries = this.metrics.counter('gateway_webhook_deliveries_total', 'Webhook delivery attempts by outcome (delivered, retry, failed).', ['outcome']);
    for (let i = 0; i < this.options.workers; i++) {
      this.loops.push(this.run(deliveries));
    }
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.purgeTimer.unref();
    this.logger.info({ workers: this.options.workers }, 'webhook dispatcher started');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.purgeTimer);
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
  }

  private async run(deliveries: ReturnType<Metrics['counter']>): Promise<void> {
    while (!this.stopping) {
      let busy = false;
      try {
        const report = await this.dispatch.execute();
        deliveries.inc({ outcome: 'delivered' }, report.delivered);
        deliveries.inc({ outcome: 'retry' }, report.failedAttempts - report.failed);
        deliveries.inc({ outcome: 'failed' }, report.failed);
        busy = report.claimed > 0;
      } catch (err) {
        this.logger.error({ err }, 'webhook dispatch batch failed; its notifications stay due');
      }
      if (!busy) {
        await this.sleep(this.options.pollIntervalMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.outbox.purgeDelivered(new Date(Date.now() - this.options.retentionMs), PURGE_BATCH);
      if (purged > 0) {
        this.logger.info({ purged }, 'delivered notifications purged');
      }
    } catch (err) {
      this.logger.warn({ err }, 'purging delivered notifications failed');
    }
  }

  private registerDepthGauge(): void {
    if (this.metrics.registry.getSingleMetric('gateway_webhook_outbox_depth')) {
      return;
    }
    const outbox = this.outbox;
    const logger = this.logger;
    new Gauge({
      name: 'gateway_webhook_outbox_depth',
      help: 'Webhook notifications not delivered yet (due or waiting for a retry); dispatchers scale on it.',
      registers: [this.metrics.registry],
      async collect() {
        try {
          this.set(await outbox.depth());
        } catch (err) {
          logger.warn({ err }, 'outbox depth unavailable');
        }
      },
    });
  }
}
