import { parseArgs } from 'node:util';
import { asJsonObject, GatewayError, JsonObject, JsonValue } from '@gateway/contracts';
import type { UnresolvedTransaction, UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import { LEARNED_CODES, LearnedCode, ResolveUnknown, ResolveUnknownResult } from '@gateway/order-transaction/domain';
import { Money } from '@gateway/money';
import { lineOrAnswer } from './command-line';
import type { CommandIo } from './operator-commands';

export const TRANSACTIONS_USAGE = `Usage: node dist/apps/order-transaction/src/main.js transactions <command> [options]
       (standalone profile: node dist/apps/gateway/src/main.js transactions <command> [options])

Transactions whose outcome the ledger does not know for sure (docs/operations/README.md):
  unresolved [--older-than-minutes <n>] [--merchant <id>] [--limit <n>]
      PENDING or UNKNOWN transactions the ledger has not written for n minutes (default 60),
      oldest first (default limit 100): reconcile them with the acquirer or provider
  resolve --merchant <id> --order <id> --transaction <id> --outcome APPROVED|DECLINED
          [--acquirer-transaction-id <reference> [--acquirer-id <id>]] [--authorization-code <code>]
      record what the acquirer's records say of a card transaction the ledger holds UNKNOWN,
      or of a card operation's reservation left PENDING for 10 minutes (resolved the same way).
      APPROVED: the money moved as the operation's approval moves it (AUTHORIZE authorised,
      PAY captured, REFUND refunded); give the acquirer's reference, which later captures,
      voids and refunds are sent by (and the acquirer's id, TEST_ACQUIRER for test merchants, if
      the transaction's response names none), and the approval code. DECLINED: the issuer declined it or
      the acquirer never processed it; the amount it held is freed. GET and a replay of the
      original request then answer the learned outcome, and a webhook notification is written
      if the UNKNOWN outcome was announced. Exit code 0 when recorded, or when the ledger
      already held that outcome (nothing written); 1 when refused (not UNKNOWN, a reservation
      younger than 10 minutes, not found).
      The gateway asks the acquirer about UNKNOWN transactions itself (UNKNOWN_INQUIRY_*):
      this is for what it leaves to you.

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the ledger is in its schema).
`;

/** What the commands work on: the ledger's report and the resolution of an UNKNOWN outcome. */
export interface TransactionsLedger {
  unresolved: UnresolvedTransactions;
  resolution: Pick<ResolveUnknown, 'execute'>;
}

/** The commands themselves, over the ledger's report and its resolution (the mains and the tests call it). */
export async function runTransactionsCommand(argv: string[], ledger: TransactionsLedger, io: CommandIo, now: () => Date = () => new Date()): Promise<number> {
  const commandLine = transactionsLine(argv, io);
  if (typeof commandLine === 'number') {
    return commandLine;
  }
  const { values, positionals } = commandLine;
  const [command] = positionals;
  switch (command) {
    case 'unresolved':
      return listUnresolved(values, ledger.unresolved, io, now);
    case 'resolve':
      return resolve(values, ledger.resolution, io);
    default:
      io.err(`error: unknown command '${command}'. Run with --help.`);
      return 2;
  }
}

/** The command's line, or its answer when the line alone answers it (lineOrAnswer): no database needed. */
export function transactionsLine(argv: string[], io: CommandIo): ReturnType<typeof parse> | number {
  return lineOrAnswer(io, () => parse(argv), TRANSACTIONS_USAGE);
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'older-than-minutes': { type: 'string' },
      merchant: { type: 'string' },
      limit: { type: 'string' },
      order: { type: 'string' },
      transaction: { type: 'string' },
      outcome: { type: 'string' },
      'acquirer-transaction-id': { type: 'string' },
      'acquirer-id': { type: 'string' },
      'authorization-code': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}

type Options = ReturnType<typeof parse>['values'];

async function listUnresolved(values: Options, report: UnresolvedTransactions, io: CommandIo, now: () => Date): Promise<number> {
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

async function resolve(values: Options, resolution: TransactionsLedger['resolution'], io: CommandIo): Promise<number> {
  const { merchant: merchantId, order: orderId, transaction: transactionId, outcome } = values;
  if (!merchantId || !orderId || !transactionId || !outcome) {
    io.err('error: resolve needs --merchant, --order, --transaction and --outcome');
    return 2;
  }
  if (!(LEARNED_CODES as readonly string[]).includes(outcome)) {
    io.err(`error: --outcome must be ${LEARNED_CODES.join(' or ')}`);
    return 2;
  }
  const acquirerTransactionId = values['acquirer-transaction-id'];
  const acquirerId = values['acquirer-id'];
  const authorizationCode = values['authorization-code'];
  let resolved: ResolveUnknownResult;
  try {
    resolved = await resolution.execute({
      merchantId,
      orderId,
      transactionId,
      source: 'OPERATOR',
      learned: {
        gatewayCode: outcome as LearnedCode,
        ...(acquirerTransactionId !== undefined ? { acquirerTransactionId } : {}),
        ...(acquirerId !== undefined ? { acquirerId } : {}),
        ...(authorizationCode !== undefined ? { authorizationCode } : {}),
      },
    });
  } catch (err) {
    if (err instanceof GatewayError) {
      io.err(`error: ${err.explanation ?? err.code}`);
      return 1;
    }
    throw err;
  }
  const summary = resolutionSummary(merchantId, resolved);
  io.out(
    values.json
      ? JSON.stringify(summary, null, 2)
      : [
          summary.status === 'RESOLVED' ? 'Recorded:' : 'Already recorded, nothing written:',
          `${summary.merchantId}/${summary.orderId}/${summary.transactionId}`,
          summary.type,
          `${summary.amount} ${summary.currency}`,
          summary.result,
          summary.gatewayCode,
          `order ${summary.order.status}`,
          summary.notified ? 'notification written' : 'no notification',
        ].join('\t'),
  );
  return 0;
}

/** The transaction as the ledger now holds it, from its stored response; amounts in the currency's own decimals. */
function resolutionSummary(merchantId: string, { status, body, notified }: ResolveUnknownResult) {
  const transaction = group(body.transaction);
  const order = group(body.order);
  const currency = String(transaction.currency);
  const amount = (value: JsonValue | undefined) => Money.of(String(value), currency).toFixed();
  return {
    status,
    merchantId,
    orderId: String(order.id),
    transactionId: String(transaction.id),
    type: String(transaction.type),
    amount: amount(transaction.amount),
    currency,
    result: String(body.result),
    gatewayCode: String(group(body.response).gatewayCode),
    order: {
      status: String(order.status),
      totalAuthorizedAmount: amount(order.totalAuthorizedAmount),
      totalCapturedAmount: amount(order.totalCapturedAmount),
      totalRefundedAmount: amount(order.totalRefundedAmount),
    },
    notified,
  };
}

function group(value: JsonValue | undefined): JsonObject {
  return asJsonObject(value) ?? {};
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
