import { parseArgs } from 'node:util';
import { notificationSecretContext } from '@gateway/contracts';
import { DecryptionError, SealingKeyRing } from '@gateway/crypto';
import type { FailedNotificationSecrets, NotificationOutbox, NotificationSummary } from '@gateway/order-transaction/data-access';
import { CommandIo, SubcommandSpec, subcommandLineOrAnswer } from '@gateway/platform';

export const NOTIFICATIONS_USAGE = `Usage: node dist/apps/order-transaction/src/main.js notifications <command> [options]
       (standalone profile: node dist/apps/gateway/src/main.js notifications <command> [options])

Webhook notifications that ran out of retries (docs/webhooks.md):
  list-failed [--merchant <id>] [--limit <n>]   failed notifications, newest first (default limit 100)
  show <notificationId>                          one notification's delivery state
  resend <notificationId> [...]                  queue failed notifications again, with a new retry window
  resend --merchant <id>                         the same for every failed notification of a merchant

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the outbox is in its schema); resend also with the
dispatcher's WEBHOOK_SECRET_KEYS, and queues nothing when a notification's secret is sealed
under a key it no longer has.
`;

/**
 * The commands themselves, over the outbox (the mains and the tests call it). `webhookKeys` is
 * the dispatcher's WEBHOOK_SECRET_KEYS, read only by resend (it throws when they are not set).
 */
export async function runNotificationsCommand(
  argv: string[],
  outbox: NotificationOutbox,
  io: CommandIo,
  webhookKeys: () => SealingKeyRing,
): Promise<number> {
  const commandLine = notificationsLine(argv, io);
  if (typeof commandLine === 'number') {
    return commandLine;
  }
  const { values, positionals } = commandLine;
  const [command, ...ids] = positionals;
  const print = (json: unknown, text: string) => io.out(values.json ? JSON.stringify(json, null, 2) : text);
  switch (command) {
    case 'list-failed': {
      const limit = Number(values.limit ?? '100');
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
        io.err('error: --limit must be an integer from 1 to 10000');
        return 2;
      }
      const failed = await outbox.listFailed({ merchantId: values.merchant, limit });
      print(failed.map(describe), failed.map(line).join('\n') || '(no failed notifications)');
      return 0;
    }
    case 'show': {
      const found = ids[0] && UUID.test(ids[0]) ? await outbox.find(ids[0]) : null;
      if (!found) {
        io.err(`error: no notification ${ids[0] ?? ''}`.trimEnd());
        return 1;
      }
      print(describe(found), JSON.stringify(describe(found), null, 2));
      return 0;
    }
    case 'resend': {
      if ((ids.length > 0) === (values.merchant !== undefined)) {
        io.err('error: resend takes notification ids or --merchant <id>, not both');
        return 2;
      }
      const bad = ids.find((id) => !UUID.test(id));
      if (bad) {
        io.err(`error: '${bad}' is not a notification id`);
        return 2;
      }
      const keys = webhookKeys();
      const failed = await outbox.failedWithSecrets(values.merchant ? { merchantId: values.merchant } : { ids });
      const unopenable = failed.flatMap((n) => unopenableSecret(n, keys) ?? []);
      if (unopenable.length > 0) {
        io.err(unopenableMessage(unopenable, keys));
        return 1;
      }
      // Those checked only: one of the merchant's that failed since is left for another resend.
      const requeued = failed.length > 0 ? await outbox.resend({ ids: failed.map((n) => n.id) }, new Date()) : [];
      print({ requeued }, requeued.length ? `Queued again: ${requeued.join(', ')}` : 'No failed notification matched.');
      return 0;
    }
    default:
      io.err(`error: unknown command '${command}'. Run with --help.`);
      return 2;
  }
}

/** The command's line, or its answer when the line alone answers it (subcommandLineOrAnswer): no database needed. */
export function notificationsLine(argv: string[], io: CommandIo): ReturnType<typeof parse> | number {
  // A subcommand given an option it does not read is refused, not run: `transactions resolve ...
  // --dry-run` resolved for real, `notifications resend --merchant M --limit 5` queued them all.
  return subcommandLineOrAnswer(io, () => parse(argv), NOTIFICATIONS_USAGE, SUBCOMMANDS);
}

/** Each subcommand's own options (--json and --help go with any) and how many words its line holds, its name included. */
const SUBCOMMANDS: Record<string, SubcommandSpec> = {
  'list-failed': { options: ['merchant', 'limit'], positionals: 1 },
  show: { options: [], positionals: 2 },
  resend: { options: ['merchant'], positionals: Infinity },
};

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      merchant: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}

interface UnopenableSecret {
  id: string;
  merchantId: string;
  /** The key it is sealed under, when the sealed value says. */
  keyId: string | null;
  reason: DecryptionError['reason'] | 'UNKNOWN';
}

/**
 * Why the dispatcher could not open a notification's secrets (the current one, and the
 * previous one during a rotation: each delivery is signed with both), or null if it can. A
 * notification keeps the secret sealed as it was written (admin reseal-notification-secrets
 * re-seals merchants' profiles, not the outbox), so once its key is dropped from
 * WEBHOOK_SECRET_KEYS every attempt fails with SECRET_UNAVAILABLE: queued again, it would only
 * fail again for a whole retry window.
 */
function unopenableSecret(n: FailedNotificationSecrets, keys: SealingKeyRing): UnopenableSecret | null {
  for (const sealed of [n.sealedSecret, ...(n.sealedPreviousSecret ? [n.sealedPreviousSecret] : [])]) {
    try {
      keys.open(sealed, notificationSecretContext(n.merchantId));
    } catch (err) {
      let keyId: string | null = null;
      try {
        keyId = SealingKeyRing.keyIdOf(sealed);
      } catch {
        // Malformed: no key named.
      }
      return { id: n.id, merchantId: n.merchantId, keyId, reason: err instanceof DecryptionError ? err.reason : 'UNKNOWN' };
    }
  }
  return null;
}

/** What the operator reads: which notifications, which key, and what to do. Never a key or secret. */
function unopenableMessage(unopenable: UnopenableSecret[], keys: SealingKeyRing): string {
  const dropped = [...new Set(unopenable.filter((u) => u.reason === 'UNKNOWN_KEY').map((u) => u.keyId!))];
  const lines = unopenable.map((u) => {
    const why =
      u.reason === 'UNKNOWN_KEY'
        ? `its secret is sealed under webhook key ${u.keyId}, which was dropped from WEBHOOK_SECRET_KEYS`
        : `its secret does not open with WEBHOOK_SECRET_KEYS${u.keyId ? ` (sealed under key ${u.keyId}: another key under that id?)` : ' (malformed)'}`;
    return `  ${u.id} (merchant ${u.merchantId}): ${why}`;
  });
  const advice = dropped.length
    ? `To deliver them, put the dropped key${dropped.length > 1 ? 's' : ''} (${dropped.join(', ')}) back in WEBHOOK_SECRET_KEYS after the current one (${keys.currentId}), ` +
      'in the dispatchers\' environment and in this command\'s, resend, and drop it again once they are delivered; ' +
      'without the key they can never be signed and delivered. Resend other notifications by their ids.'
    : 'Run with the dispatchers\' WEBHOOK_SECRET_KEYS.';
  return [
    `error: nothing was queued: ${unopenable.length} of the notifications to resend would fail every delivery with SECRET_UNAVAILABLE:`,
    ...lines,
    advice,
  ].join('\n');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function describe(n: NotificationSummary) {
  return {
    ...n,
    createdAt: n.createdAt.toISOString(),
    lastAttemptAt: n.lastAttemptAt?.toISOString() ?? null,
  };
}

function line(n: NotificationSummary): string {
  return [n.id, n.merchantId, n.orderId, n.transactionId, n.attempts, n.lastResult ?? '', n.createdAt.toISOString(), n.url].join('\t');
}
