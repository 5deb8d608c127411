import { randomBytes } from 'node:crypto';
import { notificationSecretContext } from '@gateway/contracts';
import { Secret, SealingKeyRing } from '@gateway/crypto';
import type { FailedNotificationSecrets, NotificationOutbox } from '@gateway/order-transaction/data-access';
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
    // An option the subcommand does not read: refused, not ignored (resend queued every one of the merchant's).
    [['resend', '--merchant', 'SHOP1', '--limit', '5'], 'resend does not take --limit'],
    [['show', '0b8a1f6e-4c2d-4f3a-9a8b-1c2d3e4f5a6b', '--merchant', 'SHOP1'], 'show does not take --merchant'],
    [['show', '0b8a1f6e-4c2d-4f3a-9a8b-1c2d3e4f5a6b', '0b8a1f6e-4c2d-4f3a-9a8b-1c2d3e4f5a6c'], "show takes 1 argument, not '0b8a1f6e-4c2d-4f3a-9a8b-1c2d3e4f5a6c'"],
    [['list-failed', 'SHOP1'], "list-failed takes no argument, not 'SHOP1'"],
  ])('refuses %j with exit code 2 and a message, never a stack trace', async (argv, message) => {
    const result = await run(...argv);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toMatch(/^error: /);
    expect(result.err).toContain(message);
    expect(result.err).toContain('Run with --help');
  });
});

/** resend over an outbox that holds one failed notification: what it checks before queuing. */
describe('notifications command: resend', () => {
  const id = '0b8a1f6e-4c2d-4f3a-9a8b-1c2d3e4f5a6b';
  const context = notificationSecretContext('SHOP1');
  const dropped = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'WEBHOOK_SECRET_KEYS');
  const current = SealingKeyRing.parse(`t2:${randomBytes(32).toString('base64')}`, 'WEBHOOK_SECRET_KEYS');

  async function resend(notification: FailedNotificationSecrets) {
    const resent = jest.fn(async () => [notification.id]);
    const outbox = { failedWithSecrets: async () => [notification], resend: resent } as unknown as NotificationOutbox;
    const err: string[] = [];
    const code = await runNotificationsCommand(['resend', id], outbox, { out: () => undefined, err: (t) => err.push(t) }, () => current);
    return { code, err: err.join('\n'), queued: resent.mock.calls.length };
  }

  it('queues nothing when the previous secret (signed with during a rotation) is sealed under a dropped key, though the current one opens', async () => {
    const refused = await resend({
      id,
      merchantId: 'SHOP1',
      sealedSecret: current.seal(new Secret('now'), context),
      sealedPreviousSecret: dropped.seal(new Secret('before'), context),
    });
    expect(refused).toMatchObject({ code: 1, queued: 0 });
    expect(refused.err).toContain(`${id} (merchant SHOP1): its secret is sealed under webhook key t1, which was dropped from WEBHOOK_SECRET_KEYS`);
  });

  it('queues a notification both of whose secrets open', async () => {
    const queued = await resend({
      id,
      merchantId: 'SHOP1',
      sealedSecret: current.seal(new Secret('now'), context),
      sealedPreviousSecret: current.seal(new Secret('before'), context),
    });
    expect(queued).toEqual({ code: 0, err: '', queued: 1 });
  });
});
