import { parseArgs } from 'node:util';
import type { NotificationOutbox, NotificationSummary } from '@gateway/order-transaction/data-access';
import { lineOrAnswer } from './command-line';
import type { CommandIo } from './operator-commands';

export const NOTIFICATIONS_USAGE = `Usage: node dist/apps/order-transaction/src/main.js notifications <command> [options]
       (standalone profile: node dist/apps/gateway/src/main.js notifications <command> [options])

Webhook notifications that ran out of retries (docs/webhooks.md):
  list-failed [--merchant <id>] [--limit <n>]   failed notifications, newest first (default limit 100)
  show <notificationId>                          one notification's delivery state
  resend <notificationId> [...]                  queue failed notifications again, with a new retry window
  resend --merchant <id>                         the same for every failed notification of a merchant

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the outbox is in its schema).
`;

/** The commands themselves, over the outbox (the mains and the tests call it). */
export async function runNotificationsCommand(argv: string[], outbox: NotificationOutbox, io: CommandIo): Promise<number> {
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
      const requeued = await outbox.resend(values.merchant ? { merchantId: values.merchant } : { ids }, new Date());
      print({ requeued }, requeued.length ? `Queued again: ${requeued.join(', ')}` : 'No failed notification matched.');
      return 0;
    }
    default:
      io.err(`error: unknown command '${command}'. Run with --help.`);
      return 2;
  }
}

/** The command's line, or its answer when the line alone answers it (lineOrAnswer): no database needed. */
export function notificationsLine(argv: string[], io: CommandIo): ReturnType<typeof parse> | number {
  return lineOrAnswer(io, () => parse(argv), NOTIFICATIONS_USAGE);
}

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
