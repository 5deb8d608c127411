import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../logging';
import { BackgroundJobs } from './background-jobs';

describe('BackgroundJobs', () => {
  const silent = createLogger({ service: 'test', level: 'silent' });

  it('asks every job to stop at the same moment and resolves once the slowest has stopped', async () => {
    const jobs = new BackgroundJobs(silent);
    const asked: number[] = [];
    const ended: string[] = [];
    for (const [name, ms] of [['slow', 300], ['fast', 100], ['at once', 0]] as const) {
      jobs.add(name, {
        stop: async () => {
          asked.push(Date.now());
          await sleep(ms);
          ended.push(name);
        },
      });
    }
    const began = Date.now();
    await jobs.beforeApplicationShutdown();

    expect(Math.max(...asked) - began).toBeLessThan(20);
    expect(ended).toEqual(['at once', 'fast', 'slow']);
    expect(Date.now() - began).toBeLessThan(450);
  });

  it('waits for the other jobs when one fails to stop, and logs the one that failed', async () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    const jobs = new BackgroundJobs(logger);
    let stopped = false;
    jobs.add('broken', { stop: () => Promise.reject(new Error('boom')) });
    jobs.add('slow', { stop: () => sleep(50).then(() => void (stopped = true)) });

    await jobs.stopAll();

    expect(stopped).toBe(true);
    expect(lines.join('')).toContain('"job":"broken"');
  });

  it('stops each job once, however often it is asked', async () => {
    const jobs = new BackgroundJobs(silent);
    const stop = jest.fn(async () => sleep(10));
    jobs.add('job', { stop });

    await Promise.all([jobs.stopAll(), jobs.beforeApplicationShutdown()]);

    expect(stop).toHaveBeenCalledTimes(1);
  });
});
