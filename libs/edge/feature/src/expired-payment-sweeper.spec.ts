import type { SweepExpiredPayments, SweepReport } from '@gateway/edge/domain';
import { BackgroundJobs, createLogger, Metrics } from '@gateway/platform';
import { ExpiredPaymentSweeper } from './expired-payment-sweeper';

const EMPTY: SweepReport = { COMPLETED: 0, RETURNED: 0, TIMED_OUT: 0, DISCARDED: 0, NOT_DUE: 0, BUSY: 0, FAILED: 0 };

function sweeperWith(intervalMs: number, sweep: (shouldStop: () => boolean) => Promise<SweepReport>) {
  const sweeps = { sweep: jest.fn(sweep) } as unknown as SweepExpiredPayments & { sweep: jest.Mock };
  const metrics = new Metrics();
  const logger = createLogger({ service: 'test', level: 'silent' });
  const sweeper = new ExpiredPaymentSweeper(sweeps, intervalMs, logger, metrics, new BackgroundJobs(logger));
  return { sweeper, sweeps, metrics };
}

describe('ExpiredPaymentSweeper', () => {
  // Each sweep comes at a random point of the interval's second half: here always near its end.
  beforeEach(() => jest.spyOn(Math, 'random').mockReturnValue(0.999));
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('sweeps within each interval, and counts the settlements by outcome', async () => {
    jest.useFakeTimers();
    const { sweeper, sweeps, metrics } = sweeperWith(1_000, async () => ({ ...EMPTY, TIMED_OUT: 2, COMPLETED: 1 }));
    sweeper.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sweeps.sweep).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sweeps.sweep).toHaveBeenCalledTimes(2);
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_browser_payment_expired_total{outcome="TIMED_OUT"} 4');
    expect(text).toContain('gateway_browser_payment_expired_total{outcome="COMPLETED"} 2');
    await sweeper.stop();
  });

  it('never sweeps with an interval of 0', async () => {
    jest.useFakeTimers();
    const { sweeper, sweeps } = sweeperWith(0, async () => EMPTY);
    sweeper.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(sweeps.sweep).not.toHaveBeenCalled();
  });

  it('keeps sweeping after a sweep failed', async () => {
    jest.useFakeTimers();
    let calls = 0;
    const { sweeper, sweeps } = sweeperWith(1_000, async () => {
      calls += 1;
      if (calls === 1) throw new Error('no responders');
      return EMPTY;
    });
    sweeper.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(sweeps.sweep).toHaveBeenCalledTimes(2);
    await sweeper.stop();
  });

  it('on shutdown, tells the sweep in progress to stop and waits for it', async () => {
    let finish!: () => void;
    let stopSeen = false;
    const { sweeper } = sweeperWith(1_000, (shouldStop) =>
      new Promise((resolve) => {
        finish = () => {
          stopSeen = shouldStop();
          resolve(EMPTY);
        };
      }),
    );
    const sweeping = sweeper.sweepNow();
    expect(sweeper.sweepNow()).toBe(sweeping);
    let stopped = false;
    const shutdown = sweeper.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await shutdown;
    expect(stopSeen).toBe(true);
  });
});
