import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { NotificationOutbox } from '@gateway/order-transaction/data-access';
import { DispatchNotifications, DispatchWorker, withinWait } from '@gateway/order-transaction/domain';
import { APP_LOGGER, AppLogger, BackgroundJob, BackgroundJobs, isDatabaseUnavailable, Metrics, PeriodicJob } from '@gateway/platform';
import { Gauge } from 'prom-client';

export const DISPATCHER_LOOP = Symbol('DISPATCHER_LOOP');

export interface DispatcherLoopOptions {
  workers: number;
  pollIntervalMs: number;
  retentionMs: number;
}

const PURGE_EVERY_MS = 3_600_000;
/** The first purge, soon after start: a dispatcher restarted more often than hourly still purges. */
const FIRST_PURGE_AFTER_MS = 60_000;
const PURGE_BATCH = 5_000;
/** Between two purge batches, so a large purge does not keep the database busy in one go. */
const PURGE_PAUSE_MS = 200;
/** The longest wait between two claims while claiming keeps failing (the database away). */
const MAX_CLAIM_BACKOFF_MS = 30_000;
/**
 * The longest a scrape waits for an outbox count, well inside the ServiceMonitor's 5 s
 * scrapeTimeout: with the database away a count waits DATABASE_CONNECT_TIMEOUT_MS (5 s) for a
 * connection, and the whole scrape would fail, taking every metric of the dispatcher with it and
 * paging GatewayTargetDown for a pod that runs. Past it the gauge keeps its last count.
 */
const OUTBOX_GAUGE_READ_MS = 2_000;

export interface PurgeReport {
  delivered: number;
  failed: number;
}

/**
 * The webhook dispatcher's loop (dispatch and all modes): `workers` loops each keep up to
 * WEBHOOK_BATCH_SIZE deliveries in flight, claiming due notifications whenever a slot is free,
 * and wait for a delivery to end or a poll interval when none is free or nothing is due. On
 * shutdown they claim nothing more and finish the deliveries in flight (each bounded by the
 * delivery timeout). Purges the outbox past retention shortly after start and hourly.
 * Exposes gateway_webhook_outbox_depth (every notification not delivered yet) and
 * gateway_webhook_outbox_due (those due now, which the HPA scales on), read from the outbox
 * when Prometheus scrapes.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, BackgroundJob {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();
  private readonly purges = new PeriodicJob(() => this.purgeInBatches(), () => PURGE_EVERY_MS);

  constructor(
    private readonly dispatch: DispatchNotifications,
    private readonly outbox: NotificationOutbox,
    @Inject(DISPATCHER_LOOP) private readonly options: DispatcherLoopOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    jobs: BackgroundJobs,
  ) {
    jobs.add('webhook dispatcher', this);
  }

  onApplicationBootstrap(): void {
    this.registerOutboxGauges();
    const deliveries = this.metrics.counter('gateway_webhook_deliveries_total', 'Webhook delivery attempts by outcome (delivered, retry, failed).', ['outcome']);
    for (let i = 0; i < this.options.workers; i++) {
      this.loops.push(this.run(this.dispatch.worker((outcome) => deliveries.inc({ outcome }))));
    }
    this.purges.start(FIRST_PURGE_AFTER_MS);
    this.logger.info({ workers: this.options.workers }, 'webhook dispatcher started');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.sleepers) wake();
    await Promise.all([...this.loops, this.purges.stop()]);
  }

  /**
   * Deletes delivered and failed notifications past retention, in batches until a batch comes
   * back short, pausing between batches; stops early on shutdown. Runs one at a time.
   */
  purgeExpired(): Promise<PurgeReport> {
    return this.purges.runNow();
  }

  private async run(worker: DispatchWorker): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let claimed = 0;
      try {
        claimed = await worker.claimDue();
        if (failures > 0) {
          this.logger.info({ failures }, 'claiming webhook notifications works again');
          failures = 0;
        }
      } catch (err) {
        failures += 1;
        this.claimFailed(err, failures);
      }
      if (claimed > 0 && worker.freeSlots > 0) {
        // More may be due: claim again at once.
        continue;
      }
      // No slot free, or nothing (more) to claim: until a delivery ends frees a slot, or a poll
      // interval, doubled for each claim in a row that failed (up to 30 s): a database away for a
      // while is not asked, nor logged about, every poll interval by every worker.
      // A delivery ending wakes it only while claims work: claiming again would fail anyway.
      if (failures === 0) {
        await this.sleep(this.options.pollIntervalMs, worker.nextDone());
      } else {
        await this.sleep(Math.min(this.options.pollIntervalMs * 2 ** (failures - 1), MAX_CLAIM_BACKOFF_MS));
      }
    }
    await worker.close();
  }

  /**
   * The first failure of a streak is logged, then every tenth. A database that is away (a
   * restart, a failover, which readiness and its own alerts report) is a warning; anything else
   * an error.
   */
  private claimFailed(err: unknown, failures: number): void {
    if (failures !== 1 && failures % 10 !== 0) {
      return;
    }
    if (isDatabaseUnavailable(err)) {
      this.logger.warn({ err, failures }, 'claiming webhook notifications failed: the database is unavailable; they stay due');
    } else {
      this.logger.error({ err, failures }, 'claiming webhook notifications failed; they stay due');
    }
  }

  private sleep(ms: number, orUntil?: Promise<void>): Promise<void> {
    if (this.stopping) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
      void orUntil?.then(wake);
    });
  }

  private async purgeInBatches(): Promise<PurgeReport> {
    const before = new Date(Date.now() - this.options.retentionMs);
    const report: PurgeReport = { delivered: 0, failed: 0 };
    try {
      report.delivered = await this.purgeAll((limit) => this.outbox.purgeDelivered(before, limit));
      report.failed = await this.purgeAll((limit) => this.outbox.purgeFailed(before, limit));
      if (report.delivered + report.failed > 0) {
        this.logger.info({ ...report }, 'notifications past retention purged');
      }
    } catch (err) {
      this.logger.warn({ err, ...report }, 'purging notifications past retention failed; the next purge goes on');
    }
    return report;
  }

  private async purgeAll(purgeBatch: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    while (!this.stopping) {
      const purged = await purgeBatch(PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) break;
      await this.sleep(PURGE_PAUSE_MS);
    }
    return total;
  }

  private registerOutboxGauges(): void {
    this.registerOutboxGauge(
      'gateway_webhook_outbox_depth',
      'Webhook notifications not delivered yet, due or waiting for a retry; backlog alerts watch it.',
      () => this.outbox.depth(),
    );
    this.registerOutboxGauge(
      'gateway_webhook_outbox_due',
      'Webhook notifications due now (in flight included), not those waiting for a retry; dispatchers scale on it.',
      () => this.outbox.due(new Date()),
    );
  }

  private registerOutboxGauge(name: string, help: string, read: () => Promise<number>): void {
    if (this.metrics.registry.getSingleMetric(name)) {
      return;
    }
    const logger = this.logger;
    new Gauge({
      name,
      help,
      registers: [this.metrics.registry],
      async collect() {
        try {
          this.set(await withinWait(read(), OUTBOX_GAUGE_READ_MS, `the outbox count of ${name}`));
        } catch (err) {
          logger.warn({ err, metric: name }, 'outbox gauge unavailable');
        }
      },
    });
  }
}
