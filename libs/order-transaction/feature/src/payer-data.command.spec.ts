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
