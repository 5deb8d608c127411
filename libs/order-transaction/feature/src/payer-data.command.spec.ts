import { runPayerDataCommand } from './payer-data.command';

/** Mistakes in the line are answered before anything is erased (the main opens no database for them). */
describe('payer-data: usage', () => {
  const untouched = {
    execute: () => {
      throw new Error('nothing may be erased on a usage error');
    },
  };

  it.each([
    [['erase', 'M1'], 'error: erase needs <merchantId> and at least one <orderId>'],
    [['erase'], 'error: erase needs <merchantId> and at least one <orderId>'],
    [['purge', 'M1', 'o-1'], "error: unknown command 'purge'. Run with --help."],
    [['erase', 'M1', 'o-1', '--force'], expect.stringContaining("error: Unknown option '--force'")],
  ])('%j: exit code 2, said on stderr', async (argv, said) => {
    const err: string[] = [];
    const out: string[] = [];
    expect(await runPayerDataCommand(argv, untouched, { out: (t) => out.push(t), err: (t) => err.push(t) })).toBe(2);
    expect(err).toEqual([said]);
    expect(out).toEqual([]);
  });
});

/** The command's report of an order whose erasure threw: the erasure's own failures are the int spec's. */
describe('payer-data: an order that fails', () => {
  const counts = { details: true, notificationUrl: false, responses: 1, notifications: 0, agreements: 0 };

  it('is said on one line with the error message alone, and the orders after it are still erased', async () => {
    const asked: string[] = [];
    const erasure = {
      execute: async ({ merchantId, orderId }: { merchantId: string; orderId: string }) => {
        asked.push(orderId);
        if (orderId === 'o-2') {
          throw new Error('deadlock detected\n  while locking a row');
        }
        return { merchantId, orderId, status: 'ERASED' as const, ...counts };
      },
    };
    const err: string[] = [];
    const out: string[] = [];
    expect(await runPayerDataCommand(['erase', 'M1', 'o-1', 'o-2', 'o-3', '--json'], erasure, { out: (t) => out.push(t), err: (t) => err.push(t) })).toBe(1);
    expect(asked).toEqual(['o-1', 'o-2', 'o-3']);
    expect(err).toEqual(['error: M1/o-2: failed: deadlock detected while locking a row: run the command again for this order']);
    const answer = JSON.parse(out.join('\n'));
    expect(answer.orders[1]).toEqual({ merchantId: 'M1', orderId: 'o-2', status: 'FAILED', error: 'deadlock detected while locking a row' });
    expect(answer.total).toEqual({ erased: 2, wouldErase: 0, unchanged: 0, notFound: 0, failed: 1, details: 2, notificationUrl: 0, responses: 2, notifications: 0, agreements: 0 });
    expect(out.join('\n')).not.toContain('at ');
  });
});
