import { parseArgs } from 'node:util';
import type { UnresolvedTransaction, UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import type { CommandIo } from './operator-commands';

export const TRANSACTIONS_USAGE = `Usage: node dist/apps/order-transaction/src/main.js transactions <command> [options]
       (standalone profile: node dist/apps/gateway/src/main.js transactions <command> [options])

Transactions whose outcome the ledger does not know for sure (docs/operations/README.md):
  unresolved [--older-than-minutes <n>] [--merchant <id>] [--limit <n>]
      PENDING or UNKNOWN transactions the ledger has not written for n minutes (default 60),
      oldest first (default limit 100): reconcile them with the acquirer or provider

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the ledger is in its schema).
`;

/** The commands themselves, over the ledger's report (the mains and the tests call it). */
export async function runTransactionsCommand(argv: string[], report: UnresolvedTransactions, io: CommandIo, now: () => Date = () => new Date()): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'older-than-minutes': { type: 'string' },
      merchant: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [command] = positionals;
  if (values.help || !command) {
    io.out(TRANSACTIONS_USAGE);
    return values.help ? 0 : 2;
  }
  if (command !== 'unresolved') {
    io.err(`error: unknown command '${command}'. Run with --help.`);
    return 2;
  }
  const minutes = wholeNumber(values['older-than-minutes'] ?? '60', 0, 525_600);
  const limit = wholeNumber(values.limit ?? '100', 1, 10_000);
  if (minutes === undefined || limit === undefined) {
    io.err('error: --older-than-minutes must be an integer from 0 to 525600, --limit from 1 to 10000');
    return 2;
  }
  const found = await report.list({ before: new Date(now().getTime() - minutes * 60_000), merchantId: values.merchant, limit });
  const rows = found.map(describe);
  io.out(values.json ? JSON.stringify(rows, null, 2) : rows.map(line).join('\n') || '(no unresolved transactions)');
  return 0;
}

function wholeNumber(text: string, min: number, max: number): number | undefined {
  const n = Number(text);
  return /^[0-9]+$/.test(text) && n >= min && n <= max ? n : undefined;
}

/** Amounts in the currency's own decimals, from the stored exact value. */
function describe(t: UnresolvedTransaction) {
  return { ...t, amount: Money.of(t.amount, t.currency).toFixed(), since: t.since.toISOString() };
}

function line(t: ReturnType<typeof describe>): string {
  return [t.since, t.merchantId, t.orderId, t.transactionId, t.apiOperation, t.type, `${t.amount} ${t.currency}`, t.result, t.gatewayCode].join('\t');
}
