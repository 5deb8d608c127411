/**
 * A job a process runs on a timer for as long as it lives (the webhook purge, the expired
 * browser payment sweep): one run at a time (a run asked for while one is going joins it), the
 * next run `nextDelayMs()` after the last one ended, the timer never keeping the process alive,
 * and `stop()` ending the timer and waiting for the run in progress. The job handles its own
 * errors: a run that rejects is not retried before its time.
 */
export class PeriodicJob<T> {
  private timer?: NodeJS.Timeout;
  private running: Promise<T> | null = null;
  private stopped = false;

  constructor(
    private readonly job: () => Promise<T>,
    private readonly nextDelayMs: () => number,
  ) {}

  /** The first run after `firstDelayMs` (by default the usual delay). */
  start(firstDelayMs: number = this.nextDelayMs()): void {
    this.schedule(firstDelayMs);
  }

  /** A run now, or the one in progress. */
  runNow(): Promise<T> {
    this.running ??= this.job().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      void this.runNow()
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopped) this.schedule(this.nextDelayMs());
        });
    }, delayMs);
    this.timer.unref();
  }
}
