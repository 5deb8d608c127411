import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SweepExpiredPayments, SweepReport } from '@gateway/edge/domain';
import { APP_LOGGER, AppLogger, BackgroundJob, BackgroundJobs, Metrics, PeriodicJob } from '@gateway/platform';
import type { Counter } from 'prom-client';

export const EXPIRED_PAYMENT_SWEEP_INTERVAL_MS = Symbol('EXPIRED_PAYMENT_SWEEP_INTERVAL_MS');

/**
 * Runs SweepExpiredPayments every BROWSER_PAYMENT_SWEEP_INTERVAL_MS (0: never), each time at a
 * random point of the interval's second half, so replicas started together spread their
 * sweeps. A failed sweep (browser-payment unreachable) is logged and tried again next time. On
 * shutdown (BackgroundJobs, beside the process's other jobs: in the standalone gateway, the
 * ledger's) no new settlement starts and the one in progress ends first.
 * Counts settlements in gateway_browser_payment_expired_total by outcome.
 */
@Injectable()
export class ExpiredPaymentSweeper implements OnApplicationBootstrap, BackgroundJob {
  // Each sweep at a random point of the interval's second half.
  private readonly job = new PeriodicJob(
    () => this.sweep(),
    () => this.intervalMs / 2 + Math.random() * (this.intervalMs / 2),
  );
  private stopping = false;
  private settled?: Counter<string>;

  constructor(
    private readonly sweeps: SweepExpiredPayments,
    @Inject(EXPIRED_PAYMENT_SWEEP_INTERVAL_MS) private readonly intervalMs: number,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    jobs: BackgroundJobs,
  ) {
    jobs.add('expired browser payment sweep', this);
  }

  onApplicationBootstrap(): void {
    if (this.intervalMs > 0) {
      this.settled = this.metrics.counter('gateway_browser_payment_expired_total', 'Browser payments past their redirect token settled by the gateway, by outcome.', ['outcome']);
      this.job.start();
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.job.stop();
  }

  /** One sweep now (the timer's, or a test's); resolves when it is over. */
  sweepNow(): Promise<void> {
    return this.job.runNow();
  }

  private async sweep(): Promise<void> {
    try {
      const report = await this.sweeps.sweep(() => this.stopping);
      this.count(report);
    } catch (err) {
      this.logger.warn({ err }, 'expired browser payments could not be listed; the next sweep tries again');
    }
  }

  private count(report: SweepReport): void {
    const entries = Object.entries(report).filter(([, n]) => n > 0);
    for (const [outcome, n] of entries) {
      this.settled?.inc({ outcome }, n);
    }
    if (entries.length > 0) {
      this.logger.info({ ...report }, 'expired browser payments swept');
    }
  }
}
