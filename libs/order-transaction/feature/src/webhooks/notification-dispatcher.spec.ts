import type { NotificationOutbox } from '@gateway/order-transaction/data-access';
import type { DispatchNotifications } from '@gateway/order-transaction/domain';
import { BackgroundJobs, createLogger, Metrics } from '@gateway/platform';
import { NotificationDispatcher } from './notification-dispatcher';
import { logLinesInto } from '@gateway/testing';

/** When the dispatcher purges, and in what steps (the SQL itself: retention.int-spec.ts). */
describe('the purge schedule', () => {
  const MINUTE = 60_000;

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function dispatcherOver(outbox: Pick<NotificationOutbox, 'purgeDelivered' | 'purgeFailed' | 'depth'>) {
    return new NotificationDispatcher(
      {} as DispatchNotifications,
      outbox as NotificationOutbox,
      { workers: 0, pollIntervalMs: 1_000, retentionMs: 30 * 24 * 60 * MINUTE },
      createLogger({ service: 'test', level: 'silent' }),
      new Metrics(),
      new BackgroundJobs(createLogger({ service: 'test', level: 'silent' })),
    );
  }

  it('runs a minute after start, not an hour, then hourly', async () => {
    const outbox = { purgeDelivered: jest.fn().mockResolvedValue(0), purgeFailed: jest.fn().mockResolvedValue(0), depth: jest.fn() };
    const dispatcher = dispatcherOver(outbox);
    dispatcher.onApplicationBootstrap();

    await jest.advanceTimersByTimeAsync(MINUTE - 1);
    expect(outbox.purgeDelivered).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(outbox.purgeDelivered).toHaveBeenCalledTimes(1);
    expect(outbox.purgeFailed).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(60 * MINUTE);
    expect(outbox.purgeDelivered).toHaveBeenCalledTimes(2);
    await dispatcher.stop();
  });

  it('deletes batch after batch, pausing between them, until a batch comes back short; then the failed ones alike', async () => {
    const delivered = [5_000, 5_000, 12];
    const failed = [5_000, 3];
    const calls: string[] = [];
    const outbox = {
      purgeDelivered: jest.fn(async (_before: Date, limit: number) => (calls.push(`delivered ${limit}`), delivered.shift() ?? 0)),
      purgeFailed: jest.fn(async (_before: Date, limit: number) => (calls.push(`failed ${limit}`), failed.shift() ?? 0)),
      depth: jest.fn(),
    };
    const dispatcher = dispatcherOver(outbox);

    const run = dispatcher.purgeExpired();
    await jest.advanceTimersByTimeAsync(0);
    // The pause: the second batch waits for it.
    expect(calls).toEqual(['delivered 5000']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(await run).toEqual({ delivered: 10_012, failed: 5_003 });
    expect(calls).toEqual(['delivered 5000', 'delivered 5000', 'delivered 5000', 'failed 5000', 'failed 5000']);
    const [[before]] = outbox.purgeFailed.mock.calls;
    expect(before.getTime()).toBe(outbox.purgeDelivered.mock.calls[0][0].getTime());
  });

  it('stops between batches on shutdown', async () => {
    const outbox = { purgeDelivered: jest.fn().mockResolvedValue(5_000), purgeFailed: jest.fn().mockResolvedValue(0), depth: jest.fn() };
    const dispatcher = dispatcherOver(outbox);
    const run = dispatcher.purgeExpired();
    await jest.advanceTimersByTimeAsync(0);
    await dispatcher.stop();
    await run;
    expect(outbox.purgeDelivered).toHaveBeenCalledTimes(1);
  });
});

/**
 * The outbox gauges are read when Prometheus scrapes; a count that does not come (the database
 * away: a connection waits 5 s) must not hold the scrape past its 5 s timeout, which would lose
 * every metric of the dispatcher and page GatewayTargetDown.
 */
describe('the outbox gauges', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('answer a scrape within its timeout when the outbox does not answer, keeping their last counts', async () => {
    let count: () => Promise<number> = async () => 7;
    const outbox = { depth: jest.fn(() => count()), due: jest.fn(() => count()), purgeDelivered: jest.fn().mockResolvedValue(0), purgeFailed: jest.fn().mockResolvedValue(0) };
    const metrics = new Metrics();
    const dispatcher = new NotificationDispatcher(
      {} as DispatchNotifications,
      outbox as unknown as NotificationOutbox,
      { workers: 0, pollIntervalMs: 1_000, retentionMs: 60_000 },
      createLogger({ service: 'test', level: 'silent' }),
      metrics,
      new BackgroundJobs(createLogger({ service: 'test', level: 'silent' })),
    );
    dispatcher.onApplicationBootstrap();
    expect(await metrics.registry.metrics()).toMatch(/^gateway_webhook_outbox_depth 7$/m);

    count = () => new Promise<number>(() => undefined);
    let scraped: string | undefined;
    void metrics.registry.metrics().then((text) => (scraped = text));
    // Inside the ServiceMonitor's scrapeTimeout (5 s).
    await jest.advanceTimersByTimeAsync(4_000);
    expect(scraped).toMatch(/^gateway_webhook_outbox_depth 7$/m);
    expect(scraped).toMatch(/^gateway_webhook_outbox_due 7$/m);
    await dispatcher.stop();
  });
});

/** Claiming while the database is away: backed off and logged once per streak, not every poll. */
describe('claims that keep failing', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function capturingLogger() {
    const lines: { level: string; msg: string; failures?: number }[] = [];
    const destination = logLinesInto(lines);
    return { lines, logger: createLogger({ service: 'test', level: 'info', destination }) };
  }

  it('waits longer after each failed claim (up to 30 s), logs the first failure as a warning and the recovery once', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    let down = true;
    const claimDue = jest.fn(async () => {
      if (down) throw refused;
      return 0;
    });
    const worker = { claimDue, freeSlots: 1, nextDone: () => new Promise<void>(() => undefined), close: async () => undefined };
    const { lines, logger } = capturingLogger();
    const dispatcher = new NotificationDispatcher(
      { worker: () => worker } as unknown as DispatchNotifications,
      { depth: jest.fn(), purgeDelivered: jest.fn().mockResolvedValue(0), purgeFailed: jest.fn().mockResolvedValue(0) } as unknown as NotificationOutbox,
      { workers: 1, pollIntervalMs: 1_000, retentionMs: 1 },
      logger,
      new Metrics(),
      new BackgroundJobs(logger),
    );
    dispatcher.onApplicationBootstrap();

    // Claims at 0, 1, 3, 7, 15 and 31 s: six in 40 s, not forty.
    await jest.advanceTimersByTimeAsync(40_000);
    expect(claimDue).toHaveBeenCalledTimes(6);
    // Then at most every 30 s.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(claimDue).toHaveBeenCalledTimes(8);
    const failing = lines.filter((line) => line.msg.startsWith('claiming webhook notifications failed'));
    expect(failing.map((line) => [line.level, line.failures])).toEqual([['warn', 1]]);

    down = false;
    await jest.advanceTimersByTimeAsync(30_000);
    expect(lines.filter((line) => line.msg === 'claiming webhook notifications works again')).toHaveLength(1);
    const calls = claimDue.mock.calls.length;
    await jest.advanceTimersByTimeAsync(3_000);
    // Back to the poll interval.
    expect(claimDue.mock.calls.length - calls).toBe(3);
    await dispatcher.stop();
  });
});
