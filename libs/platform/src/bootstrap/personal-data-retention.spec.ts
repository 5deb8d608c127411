import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { BackgroundJobs } from './background-jobs';
import {
  forEachRetentionPage,
  retainOrder,
  PersonalDataRetention,
  RETENTION_PASS_ORDER,
  RetentionPass,
} from './personal-data-retention';

const logger = createLogger({ service: 'test', level: 'silent' });

function retention(metrics = new Metrics()): { job: PersonalDataRetention; jobs: BackgroundJobs } {
  const jobs = new BackgroundJobs(logger);
  return { job: new PersonalDataRetention(logger, jobs, metrics), jobs };
}

describe('PersonalDataRetention', () => {
  it("runs browser-payment's pass before the ledger's, whatever order their modules registered them in", async () => {
    const { job } = retention();
    const ran: string[] = [];
    const pass = (name: string): RetentionPass => ({ run: async () => (ran.push(name), { erased: 1 }) });
    job.add('order-transaction', RETENTION_PASS_ORDER.ledger, pass('ledger'));
    job.add('browser-payment', RETENTION_PASS_ORDER.browserPayment, pass('browser-payment'));
    expect(await job.runNow()).toEqual({
      'browser-payment': { erased: 1 },
      'order-transaction': { erased: 1 },
    });
    expect(ran).toEqual(['browser-payment', 'ledger']);
  });

  it('counts the orders each pass did by outcome, failures exported from 0 as soon as a pass joins', async () => {
    const metrics = new Metrics();
    const { job } = retention(metrics);
    const counted = async () =>
      (
        await metrics.registry.getSingleMetric('gateway_personal_data_retention_orders_total')!.get()
      ).values.map(({ labels, value }) => ({ ...labels, value }));
    job.add('order-transaction', RETENTION_PASS_ORDER.ledger, {
      run: async () => ({ erased: 3, unchanged: 1, failed: 0 }),
    });
    expect(await counted()).toEqual([{ pass: 'order-transaction', outcome: 'failed', value: 0 }]);
    await job.runNow();
    await job.runNow();
    expect(await counted()).toEqual(
      expect.arrayContaining([
        { pass: 'order-transaction', outcome: 'erased', value: 6 },
        { pass: 'order-transaction', outcome: 'unchanged', value: 2 },
        { pass: 'order-transaction', outcome: 'failed', value: 0 },
      ]),
    );
  });

  it("exports each service's declared setting in days by pass, 0 (the retention off) included", async () => {
    const metrics = new Metrics();
    const { job } = retention(metrics);
    const declared = async () =>
      (await metrics.registry.getSingleMetric('gateway_personal_data_retention_days')!.get()).values.map(
        ({ labels, value }) => ({ ...labels, value }),
      );
    job.declare('order-transaction', 600);
    job.declare('browser-payment', 0);
    expect(await declared()).toEqual([
      { pass: 'order-transaction', value: 600 },
      { pass: 'browser-payment', value: 0 },
    ]);
    // As Prometheus reads it: a service with the retention off is a series at 0, not a missing one.
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_personal_data_retention_days{pass="order-transaction"} 600');
    expect(text).toContain('gateway_personal_data_retention_days{pass="browser-payment"} 0');
  });

  it('goes on with the next pass when one fails, and stops between passes once the process stops (registered with BackgroundJobs)', async () => {
    const { job, jobs } = retention();
    const failing: RetentionPass = { run: () => Promise.reject(new Error('database away')) };
    let seenStopping: boolean | undefined;
    const ledger: RetentionPass = { run: async (stopping) => ((seenStopping = stopping()), { erased: 0 }) };
    job.add('browser-payment', RETENTION_PASS_ORDER.browserPayment, failing);
    job.add('order-transaction', RETENTION_PASS_ORDER.ledger, ledger);
    expect(await job.runNow()).toEqual({ 'order-transaction': { erased: 0 } });
    expect(seenStopping).toBe(false);

    let release!: () => void;
    const held: RetentionPass = {
      run: (stopping) =>
        new Promise((resolve) => (release = () => resolve({ stoppedAsked: stopping() ? 1 : 0 }))),
    };
    const { job: other, jobs: otherJobs } = retention();
    const after = { run: jest.fn(async () => ({ erased: 0 })) };
    other.add('browser-payment', RETENTION_PASS_ORDER.browserPayment, held);
    other.add('order-transaction', RETENTION_PASS_ORDER.ledger, after);
    const run = other.runNow();
    // The stop does not wait for the run in progress: an order cut off commits nothing.
    await otherJobs.stopAll();
    release();
    expect(await run).toEqual({ 'browser-payment': { stoppedAsked: 1 } });
    expect(after.run).not.toHaveBeenCalled();
    await jobs.stopAll();
  });
});

describe('forEachRetentionPage', () => {
  const rows = [1, 2, 3, 4, 5];
  const reader = () => {
    const asked: (number | null)[] = [];
    const read = async (after: number | null) => {
      asked.push(after);
      return rows.filter((row) => row > (after ?? 0)).slice(0, 2);
    };
    return { asked, read };
  };

  it('reads page after page from the first, each after the last row done, until a page comes back short', async () => {
    const { asked, read } = reader();
    const done: number[] = [];
    await forEachRetentionPage(
      read,
      async (row) => void done.push(row),
      { pageSize: 2, pauseMs: 0 },
      () => false,
    );
    expect(done).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([null, 2, 4]);
  });

  it('begins no other row once the process stops, and reads no other page', async () => {
    const { asked, read } = reader();
    const done: number[] = [];
    let stopping = false;
    await forEachRetentionPage(
      read,
      async (row) => {
        done.push(row);
        stopping = row === 3;
      },
      { pageSize: 2, pauseMs: 0 },
      () => stopping,
    );
    expect(done).toEqual([1, 2, 3]);
    expect(asked).toEqual([null, 2]);
  });
});

describe('retainOrder', () => {
  const order = { merchantId: 'TESTM1', orderId: 'order-1' };

  it("counts the erasure's outcome", async () => {
    const report = { erased: 0, unchanged: 0, failed: 0 };
    await retainOrder(
      order,
      async () => 'erased' as const,
      report,
      () => false,
      logger,
      'not stripped',
    );
    expect(report).toEqual({ erased: 1, unchanged: 0, failed: 0 });
  });

  it("counts a failed erasure and logs the order's ids with the error's first line only, never its stack or detail", async () => {
    const warn = jest.fn();
    const report = { erased: 0, failed: 0 };
    const failing = async (): Promise<'erased'> => {
      throw new Error(
        'canceling statement due to statement timeout\nDETAIL: Key (details)=(zelda@example.org) ...',
      );
    };
    await retainOrder(
      order,
      failing,
      report,
      () => false,
      { ...logger, warn } as unknown as typeof logger,
      'not stripped',
    );
    expect(report).toEqual({ erased: 0, failed: 1 });
    expect(warn).toHaveBeenCalledWith(
      { ...order, reason: 'canceling statement due to statement timeout' },
      'not stripped',
    );
  });

  it('counts nothing for an erasure the shutdown cut off (it committed nothing)', async () => {
    const warn = jest.fn();
    const report = { erased: 0, failed: 0 };
    await retainOrder(
      order,
      () => Promise.reject(new Error('pool closed')),
      report,
      () => true,
      { ...logger, warn } as unknown as typeof logger,
      'not stripped',
    );
    expect(report).toEqual({ erased: 0, failed: 0 });
    expect(warn).not.toHaveBeenCalled();
  });
});
