import type { NotificationOutbox } from '@gateway/order-transaction/data-access';
import { runNotificationsCommand } from './notifications.command';

/** Usage mistakes: a clear message and exit code 2, the outbox untouched. */
describe('notifications command: usage', () => {
  const outbox = new Proxy({} as NotificationOutbox, {
    get: () => () => {
      throw new Error('the outbox must not be used');
    },
  });

  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runNotificationsCommand(argv, outbox, { out: (t) => out.push(t), err: (t) => err.push(t) }, () => {
      throw new Error('the keys must not be read');
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it.each([
    [['resend', '--merchnt', 'SHOP1'], "Unknown option '--merchnt'"],
    [['list-failed', '--limit'], "'--limit <value>' argument missing"],
    [['resend', '--json=yes', '0b8a1f6e-4c2d-4f3a-9a8b-1c2d3e4f5a6b'], "--json"],
  ])('refuses %j with exit code 2 and a message, never a stack trace', async (argv, message) => {
    const result = await run(...argv);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toMatch(/^error: /);
    expect(result.err).toContain(message);
    expect(result.err).toContain('Run with --help');
  });
});
