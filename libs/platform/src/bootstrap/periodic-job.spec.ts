import { PeriodicJob } from './periodic-job';

describe('PeriodicJob', () => {
  afterEach(() => jest.useRealTimers());

  it('runs first after the given delay, then each usual delay after the last run ended', async () => {
    jest.useFakeTimers();
    const job = jest.fn(async () => undefined);
    const periodic = new PeriodicJob(job, () => 1_000);
    periodic.start(100);
    await jest.advanceTimersByTimeAsync(99);
    expect(job).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(job).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(job).toHaveBeenCalledTimes(2);
    await periodic.stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(job).toHaveBeenCalledTimes(2);
  });

  it('runs one at a time: a run asked for during another joins it', async () => {
    let finish!: (value: number) => void;
    const job = jest.fn(() => new Promise<number>((resolve) => (finish = resolve)));
    const periodic = new PeriodicJob(job, () => 1_000);
    const first = periodic.runNow();
    expect(periodic.runNow()).toBe(first);
    finish(7);
    expect(await first).toBe(7);
    expect(job).toHaveBeenCalledTimes(1);
  });

  it('keeps its schedule after a run that failed', async () => {
    jest.useFakeTimers();
    const job = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    const periodic = new PeriodicJob(job, () => 1_000);
    periodic.start();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(job).toHaveBeenCalledTimes(2);
    await periodic.stop();
  });

  it('on stop, waits for the run in progress', async () => {
    let finish!: () => void;
    const periodic = new PeriodicJob(() => new Promise<void>((resolve) => (finish = resolve)), () => 1_000);
    void periodic.runNow();
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });
});
