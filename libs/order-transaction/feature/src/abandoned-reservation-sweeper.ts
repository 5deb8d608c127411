import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AbandonedReservations, AbandonedSweep } from '@gateway/order-transaction/domain';
import { APP_LOGGER, AppLogger, BackgroundJob, BackgroundJobs, PeriodicJob } from '@gateway/platform';

export const ABANDONED_SWEEP_SCHEDULE = Symbol('ABANDONED_SWEEP_SCHEDULE');

/** When the sweep runs: ABANDONED_RESERVATION_SWEEP_INTERVAL_MS, and UNKNOWN_INQUIRY_INTERVAL_MS (the inquiries that ask about what it queues). */
export interface AbandonedSweepSchedule {
  intervalMs: number;
  inquiryIntervalMs: number;
}

/** The pause between two steps of a sweep that is behind (a cursor left an hour back or more): each step is one bounded scan. */
const CATCH_UP_DELAY_MS = 1_000;

/**
 * Sweeps the ledger every ABANDONED_RESERVATION_SWEEP_INTERVAL_MS, in each request-serving
 * process (0 turns it off), for card reservations abandoned PENDING that no read met, and queues
 * them for the UNKNOWN inquiries (AbandonedReservations.sweep). Replicas share one cursor: one
 * sweeps the minutes of the ledger created since the last sweep, the others skip. A sweep left
 * behind takes its next step after CATCH_UP_DELAY_MS rather than the interval.
 *
 * Only where the inquiries run (UNKNOWN_INQUIRY_INTERVAL_MS > 0): what it queues is for them to
 * ask about, and with them off nobody would. It then leaves its cursor where it is, so turning the
 * inquiries on catches up from there; meanwhile `transactions unresolved` lists the reservations.
 *
 * On shutdown (BackgroundJobs) it starts no step and does not wait for the one in progress: a step is one database
 * transaction that moves the cursor only with what it queued, so one cut off by the pool's close
 * (after the requests in flight are done) commits nothing, and the next sweep, of any replica,
 * reads its window again. Waiting would spend the shutdown grace (shutdownGraceNeeded, which
 * counts no sweep) before the requests in flight are drained, up to the statement timeouts of a
 * database failover.
 */
@Injectable()
export class AbandonedReservationSweeper implements OnApplicationBootstrap, BackgroundJob {
  private readonly sweeps: PeriodicJob<AbandonedSweep | null>;
  private behind = false;
  private stopping = false;

  constructor(
    private readonly abandoned: AbandonedReservations,
    @Inject(ABANDONED_SWEEP_SCHEDULE) private readonly schedule: AbandonedSweepSchedule,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    jobs: BackgroundJobs,
  ) {
    this.sweeps = new PeriodicJob(
      () => this.sweep(),
      () => (this.behind ? Math.min(CATCH_UP_DELAY_MS, schedule.intervalMs) : schedule.intervalMs),
    );
    jobs.add('abandoned reservation sweep', this);
  }

  onApplicationBootstrap(): void {
    if (this.schedule.intervalMs <= 0) {
      return;
    }
    if (this.schedule.inquiryIntervalMs <= 0) {
      this.logger.info(
        { sweepIntervalMs: this.schedule.intervalMs },
        'abandoned card reservations are not swept: the inquiries are off (UNKNOWN_INQUIRY_INTERVAL_MS 0), nobody would ask about what the sweep queued; ' +
          '`transactions unresolved` lists them, and the sweep catches up once the inquiries are on',
      );
      return;
    }
    this.sweeps.start();
  }

  stop(): void {
    this.stopping = true;
    // Ends the timer at once; the step in progress is not waited for (see above).
    void this.sweeps.stop();
  }

  /** A step of the sweep now (or the one in progress): tests, and an operator's one-off run. Null: it failed (logged). */
  runNow(): Promise<AbandonedSweep | null> {
    return this.sweeps.runNow();
  }

  private async sweep(): Promise<AbandonedSweep | null> {
    try {
      const swept = await this.abandoned.sweep();
      this.behind = swept.outcome === 'SWEPT' && swept.behind;
      return swept;
    } catch (err) {
      this.behind = false;
      if (this.stopping) {
        // The pool closed under it: not a database failure. Its transaction committed nothing.
        this.logger.info(
          { reason: err instanceof Error ? err.message : String(err) },
          'abandoned reservation sweep step cut off by the shutdown; its window is swept again by the next sweep',
        );
      } else {
        this.logger.warn({ err }, 'ledger not swept for abandoned card reservations; the next sweep tries again');
      }
      return null;
    }
  }
}
