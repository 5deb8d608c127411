import type { ArgumentsHost } from '@nestjs/common';
import { GatewayError } from '@gateway/contracts';
import { lastValueFrom, Observable } from 'rxjs';
import { QueryFailedError } from 'typeorm';
import { AppLogger } from '../logging';
import { AllExceptionsFilter } from './all-exceptions.filter';

const rpcHost = { getType: () => 'rpc' } as unknown as ArgumentsHost;

function logger() {
  return { warn: jest.fn(), error: jest.fn() } as unknown as AppLogger & { warn: jest.Mock; error: jest.Mock };
}

/** What the filter sends back over the message transport for `exception`. */
async function wireAnswer(filter: AllExceptionsFilter, exception: unknown): Promise<unknown> {
  return lastValueFrom(filter.catch(exception, rpcHost) as Observable<never>).catch((wire: unknown) => wire);
}

describe('AllExceptionsFilter on the message transport', () => {
  it('answers the database being unavailable as SERVER_BUSY, logged as a warning without a support code', async () => {
    const log = logger();
    const poolTimeout = new Error('timeout exceeded when trying to connect');
    const shutdown = new QueryFailedError('SELECT 1', [], Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));

    for (const exception of [poolTimeout, shutdown]) {
      const wire = await wireAnswer(new AllExceptionsFilter(log), exception);
      expect(GatewayError.fromWire(wire as never)).toMatchObject({ code: 'SERVER_BUSY', retryAfterSeconds: 1 });
    }
    expect(log.error).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledWith({ reason: 'timeout exceeded when trying to connect' }, 'database unavailable');
  });

  it('still answers any other fault as SERVER_FAILED under a fresh support code, logged as an error', async () => {
    const log = logger();
    const violation = new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key value'), { code: '23505' }));

    const wire = await wireAnswer(new AllExceptionsFilter(log), violation);

    const answered = GatewayError.fromWire(wire as never);
    expect(answered.code).toBe('SERVER_FAILED');
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ supportCode: answered.supportCode, err: violation }), 'request failed');
  });
});
