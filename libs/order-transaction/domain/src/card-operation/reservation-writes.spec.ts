import { GatewayError } from '@gateway/contracts';
import { NotDeliveredError } from '@gateway/platform';
import { hadNoEffect, writeAfterSideEffect } from './reservation-writes';

describe('writeAfterSideEffect', () => {
  /** A write failing `failures` times with `error`, then answering 'written'. */
  function flaky(failures: number, error: () => Error) {
    const write = jest.fn(async () => {
      if (write.mock.calls.length <= failures) {
        throw error();
      }
      return 'written';
    });
    return write;
  }

  it('retries a transient failure (a dropped connection) until the write lands', async () => {
    const write = flaky(2, () => new Error('Connection terminated unexpectedly'));
    const gaveUp = jest.fn();
    await expect(writeAfterSideEffect(write, gaveUp)).resolves.toBe('written');
    expect(write).toHaveBeenCalledTimes(3);
    expect(gaveUp).not.toHaveBeenCalled();
  });

  it('gives up after three attempts, telling gaveUp the last error before throwing it', async () => {
    const write = flaky(5, () => new Error('database down'));
    const gaveUp = jest.fn();
    await expect(writeAfterSideEffect(write, gaveUp)).rejects.toThrow('database down');
    expect(write).toHaveBeenCalledTimes(3);
    expect(gaveUp).toHaveBeenCalledWith(expect.objectContaining({ message: 'database down' }));
  });

  it('keeps trying while the database restarts or fails over, so an approved payment is recorded once it is back', async () => {
    // Postgres away for 1.5 s (a restart; a failover takes longer): refused connections, then the write lands.
    const back = Date.now() + 1_500;
    const write = jest.fn(async () => {
      if (Date.now() < back) {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      return 'written';
    });
    const gaveUp = jest.fn();
    await expect(writeAfterSideEffect(write, gaveUp)).resolves.toBe('written');
    expect(gaveUp).not.toHaveBeenCalled();
  });

  it('gives up on an unavailable database once its window has passed', async () => {
    const write = jest.fn(async () => {
      throw new Error('Connection terminated unexpectedly');
    });
    const gaveUp = jest.fn();
    const started = Date.now();
    await expect(writeAfterSideEffect(write, gaveUp, { unavailableWindowMs: 600 })).rejects.toThrow('Connection terminated');
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(gaveUp).toHaveBeenCalledTimes(1);
  });

  it('gives a failure after the database is back its own three attempts, whatever the outage took', async () => {
    // Three refused connections (a restart), then one serialization failure, then the write lands.
    const errors = [
      ...Array.from({ length: 3 }, () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
      Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' }),
    ];
    const write = jest.fn(async () => {
      const error = errors.shift();
      if (error) {
        throw error;
      }
      return 'written';
    });
    const gaveUp = jest.fn();
    await expect(writeAfterSideEffect(write, gaveUp)).resolves.toBe('written');
    expect(write).toHaveBeenCalledTimes(5);
    expect(gaveUp).not.toHaveBeenCalled();
  });

  it('takes a rule\'s refusal (a GatewayError) as final', async () => {
    const write = flaky(5, () => GatewayError.invalidRequest('refused'));
    const gaveUp = jest.fn();
    await expect(writeAfterSideEffect(write, gaveUp)).rejects.toBeInstanceOf(GatewayError);
    expect(write).toHaveBeenCalledTimes(1);
    expect(gaveUp).toHaveBeenCalledTimes(1);
  });
});

describe('hadNoEffect', () => {
  it('is true only for what cannot have moved money: not delivered, or refused with a 4xx', () => {
    expect(hadNoEffect(new NotDeliveredError('token-vault.acquirer.call.v1'))).toBe(true);
    expect(hadNoEffect(GatewayError.invalidRequest('the vault refused the token'))).toBe(true);
    expect(hadNoEffect(new Error('timeout'))).toBe(false);
    // A 5xx: the callee may have acted before it failed.
    expect(hadNoEffect(GatewayError.serverFailed())).toBe(false);
  });
});
