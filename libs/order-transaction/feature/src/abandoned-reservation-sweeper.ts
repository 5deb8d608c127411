import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AbandonedReservations, AbandonedSweep } from '@gateway/order-transaction/domain';
import { APP_LOGGER, AppLogger, PeriodicJob } from '@gateway/platform';

export const ABANDONED_SWEEP_INTERVAL = Symbol('ABANDONED_SWEEP_INTERVAL');

/** The pause between two steps of a sweep that is behind (a cursor left an hour back or more): each step is one bounded scan. */
const CATCH_UP_DELAY_MS = 1_000;

/**
 * Sweeps the ledger every ABANDONED_RESERVATION_SWEEP_INTERVAL_MS, in each request-serving
 * process (0 turns it off), for card reservations abandoned PENDING that no read met, and queues
 * them for the UNKNOWN inquiries (AbandonedReservations.sweep). Replicas share one cursor: one
 * sweeps the minutes of the ledger created since the last sweep, the others skip. A sweep left
 * behind takes its next step after CATCH_UP_DELAY_MS rather than the interval. A step is one
 * short database transaction, bounded by the statement timeout: on shutdown the one in progress
 * is waited for.
 */
@Injectable()
export class AbandonedReservationSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sweeps: PeriodicJob<AbandonedSweep | null>;
  private behind = false;

  constructor(
    private readonly abandoned: AbandonedReservations,
    @Inject(ABANDONED_SWEEP_INTERVAL) private readonly intervalMs: number,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.sweeps = new PeriodicJob(
      () => this.sweep(),
      () => (this.behind ? Math.min(CATCH_UP_DELAY_MS, this.intervalMs) : this.intervalMs),
    );
  }

  onApplicationBootstrap(): void {
    if (this.intervalMs > 0) {
      this.sweeps.start();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeps.stop();
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
      this.logger.warn({ err }, 'ledger not swept for abandoned card reservations; the next sweep tries again');
      return null;
    }
  }
}
