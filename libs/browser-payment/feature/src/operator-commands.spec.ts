import { operatorCommandProcess } from '@gateway/testing';
import { runOperatorCommandMain } from './operator-commands';
import { runPayerDataCommand } from './payer-data.command';

/** `main.js payer-data --help` in browser-payment's image: the usage, without the service's credentials. */
describe('browser-payment operator commands: the usage needs no database', () => {
  const written = operatorCommandProcess();

  it.each([
    [['--help'], 0],
    [[], 2],
  ] as const)('payer-data %j: the usage, exit code %i, no configuration read', async (argv, code) => {
    await runOperatorCommandMain('payer-data', [...argv]);
    expect(written.err.join('')).toBe('');
    expect(written.out.join('')).toContain("browser-payment's DATABASE_URL");
    expect(process.exitCode).toBe(code);
  });
});

/** Mistakes in the line are answered before anything is erased. */
describe('payer-data (browser-payment): usage', () => {
  const untouched = {
    execute: () => {
      throw new Error('nothing may be erased on a usage error');
    },
  };

  it.each([
    [['erase', 'M1'], 'error: erase needs <merchantId> and at least one <orderId>'],
    [['purge', 'M1', 'o-1'], "error: unknown command 'purge'. Run with --help."],
  ])('%j: exit code 2, said on stderr', async (argv, said) => {
    const err: string[] = [];
    expect(await runPayerDataCommand(argv, untouched, { out: () => undefined, err: (t) => err.push(t) })).toBe(2);
    expect(err).toEqual([said]);
  });
});
