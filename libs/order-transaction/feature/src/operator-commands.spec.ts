import { operatorCommandProcess } from '@gateway/testing';
import { runOperatorCommandMain } from './operator-commands';

/**
 * `main.js notifications --help` and `main.js transactions --help` in order-transaction's image:
 * the usage, without the service's credentials (as the admin CLI and `rotate-keys` answer it).
 */
describe('operator commands: the usage needs no database', () => {
  const written = operatorCommandProcess();

  it.each([
    ['notifications', ['--help'], 0, 'list-failed'],
    ['transactions', ['--help'], 0, 'unresolved'],
    ['transactions', ['resolve', '--help'], 0, 'resolve --merchant'],
    ['transactions', ['record-lost', '--help'], 0, 'record-lost --file'],
    ['notifications', [], 2, 'resend'],
    ['payer-data', ['--help'], 0, 'erase <merchantId> <orderId>'],
    ['payer-data', [], 2, 'erase <merchantId> <orderId>'],
  ] as const)('%s %j: the usage, exit code %i, no configuration read', async (command, argv, code, shown) => {
    await runOperatorCommandMain(command, [...argv]);
    expect(written.err.join('')).toBe('');
    expect(written.out.join('')).toContain(shown);
    expect(process.exitCode).toBe(code);
  });
});
