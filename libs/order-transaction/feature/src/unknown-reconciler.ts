import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InquireUnknown, InquiryRound } from '@gateway/order-transaction/domain';
import { APP_LOGGER, AppLogger, BackgroundJob, BackgroundJobs, PeriodicJob } from '@gateway/platform';

export const UNKNOWN_RECONCILER_INTERVAL = Symbol('UNKNOWN_RECONCILER_INTERVAL');

/**
 * Runs InquireUnknown's rounds every UNKNOWN_INQUIRY_INTERVAL_MS in each request-serving
 * process (serve and all modes; 0 turns it off). Rounds of one process never overlap; those of
 * several replicas share the queue through its claims. On shutdown it starts no round, and the
 * one in progress asks no more after the inquiry it is at (bounded by INQUIRY_WAIT_MS) and gives
 * back the claims it did not use, for the other replicas' next rounds: the shutdown waits for
 * this (BackgroundJobs, beside the process's other jobs) before it drains the NATS requests, all
 * within SHUTDOWN_GRACE_MS, so a whole batch of slow inquiries would leave the payments still
 * arriving meanwhile to be cut off.
 */
@Injectable()
export class UnknownReconciler implements OnApplicationBootstrap, BackgroundJob {
  private readonly rounds: PeriodicJob<InquiryRound | null>;
  private stopping = false;

  constructor(
    private readonly inquire: InquireUnknown,
    @Inject(UNKNOWN_RECONCILER_INTERVAL) private readonly intervalMs: number,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    jobs: BackgroundJobs,
  ) {
    this.rounds = new PeriodicJob(() => this.round(), () => this.intervalMs);
    jobs.add('unknown inquiries', this);
  }

  onApplicationBootstrap(): void {
    if (this.intervalMs > 0) {
      this.rounds.start();
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.rounds.stop();
  }

  /** A round now (or the one in progress): tests, and an operator's one-off run. */
  runNow(): Promise<InquiryRound | null> {
    return this.rounds.runNow();
  }

  private async round(): Promise<InquiryRound | null> {
    try {
      const round = await this.inquire.round(new Date(), () => this.stopping);
      if (round.claimed > 0) {
        this.logger.info({ ...round }, 'inquiries about UNKNOWN transactions sent');
      }
      return round;
    } catch (err) {
      // The queue unreadable (the database away): the next round tries again.
      this.logger.warn({ err }, 'inquiries about UNKNOWN transactions not sent; the next round tries again');
      return null;
    }
  }
}
