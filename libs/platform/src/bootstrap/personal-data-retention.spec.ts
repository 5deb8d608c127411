import { createLogger } from '../logging';
import { BackgroundJobs } from './background-jobs';
import { PersonalDataRetention, RETENTION_PASS_ORDER, RetentionPass } from './personal-data-retention';

const logger = createLogger({ service: 'test', level: 'silent' });

function retention(): { job: PersonalDataRetention; jobs: BackgroundJobs } {
  const jobs = new BackgroundJobs(logger);
  return { job: new PersonalDataRetention(logger, jobs), jobs };
}

describe('PersonalDataRetention', () => {
  it("runs browser-payment's pass before the ledger's, whatever order their modules registered them in", async () => {
    const { job } = retention();
    const ran: string[] = [];
    const pass = (name: string): RetentionPass => ({ run: async () => (ran.push(name), { erased: 1 }) });
    job.add('order-transaction', RETENTION_PASS_ORDER.ledger, pass('ledger'));
    job.add('browser-payment', RETENTION_PASS_ORDER.browserPayment, pass('browser-payment'));
    expect(await job.runNow()).toEqual({ 'browser-payment': { erased: 1 }, 'order-transaction': { erased: 1 } });
    expect(ran).toEqual(['browser-payment', 'ledger']);
  });

  it("goes on with the next pass when one fails, and stops between passes once the process stops (registered with BackgroundJobs)", async () => {
    const { job, jobs } = retention();
    const failing: RetentionPass = { run: () => Promise.reject(new Error('database away')) };
    let seenStopping: boolean | undefined;
    const ledger: RetentionPass = { run: async (stopping) => ((seenStopping = stopping()), { erased: 0 }) };
    job.add('browser-payment', RETENTION_PASS_ORDER.browserPayment, failing);
    job.add('order-transaction', RETENTION_PASS_ORDER.ledger, ledger);
    expect(await job.runNow()).toEqual({ 'order-transaction': { erased: 0 } });
    expect(seenStopping).toBe(false);

    let release!: () => void;
    const held: RetentionPass = { run: (stopping) => new Promise((resolve) => (release = () => resolve({ stoppedAsked: stopping() ? 1 : 0 }))) };
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
