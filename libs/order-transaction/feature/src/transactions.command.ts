import { readFile } from 'node:fs/promises';
import { text as textOf } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { asJsonObject, GatewayError, JsonObject, JsonValue } from '@gateway/contracts';
import type { UnresolvedTransaction, UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import {
  LEARNED_CODES,
  LearnedCode,
  LostTransaction,
  parseLostTransaction,
  RecordLostResult,
  RecordLostTransaction,
  ResolveUnknown,
  ResolveUnknownResult,
} from '@gateway/order-transaction/domain';
import { Money } from '@gateway/money';
import { CommandIo, SubcommandSpec, subcommandLineOrAnswer } from '@gateway/platform';

export const TRANSACTIONS_USAGE = `Usage: node dist/apps/order-transaction/src/main.js transactions <command> [options]
       (standalone profile: node dist/apps/gateway/src/main.js transactions <command> [options])

Transactions whose outcome the ledger does not know for sure (docs/operations/README.md):
  unresolved [--older-than-minutes <n>] [--merchant <id>] [--limit <n>]
      PENDING or UNKNOWN transactions the ledger has not written for n minutes (default 60),
      oldest first (default limit 100): reconcile them with the acquirer or provider
  resolve --merchant <id> --order <id> --transaction <id>
          --outcome APPROVED|PARTIALLY_APPROVED|DECLINED [--approved-amount <amount>]
          [--acquirer-transaction-id <reference> [--acquirer-id <id>]] [--authorization-code <code>]
      record what the acquirer's records say of a card transaction the ledger holds UNKNOWN,
      or of a card operation's reservation left PENDING for 10 minutes (resolved the same way).
      APPROVED: the money moved as the operation's approval moves it (AUTHORIZE authorised,
      PAY captured, REFUND refunded); give the acquirer's reference, which later captures,
      voids and refunds are sent by (and the acquirer's id, TEST_ACQUIRER for test merchants, if
      the transaction's response names none), and the approval code. PARTIALLY_APPROVED (an
      AUTHORIZE or PAY whose request set order.acceptPartialAmount; refused otherwise): the
      issuer approved --approved-amount (required: a decimal in the order's currency, e.g. 5.25,
      above 0 and below the transaction's amount); the transaction and the order are recorded at
      it, transaction.requestedAmount keeps what was asked, no transaction tax is kept, as when
      the partial approval is answered at once. DECLINED: the issuer declined it or
      the acquirer never processed it; the amount it held is freed. GET and a replay of the
      original request then answer the learned outcome, and a webhook notification is written
      if the UNKNOWN outcome was announced. Exit code 0 when recorded, or when the ledger
      already held that outcome (nothing written); 1 when refused (not UNKNOWN, a reservation
      younger than 10 minutes, not found).
      The gateway asks the acquirer about UNKNOWN transactions itself (UNKNOWN_INQUIRY_*):
      this is for what it leaves to you.
  record-lost --file <path>|- [--dry-run]
      record card transactions the acquirer processed and the ledger never began (the window
      lost in a restore to an earlier point), from the acquirer's records: one JSON object a
      line, e.g.
        {"merchantId":"M1","orderId":"o-1","transactionId":"t-1","type":"PAYMENT",
         "amount":"12.50","currency":"USD","gatewayCode":"APPROVED",
         "acquirer":{"id":"TEST_ACQUIRER","transactionId":"MCC123"},"receipt":"<RRN>",
         "authorizationCode":"123456","time":"2026-11-26T10:15:00Z",
         "card":{"number":"512345xxxxxx0008","brand":"MASTERCARD","expiry":"0139"}}
      type AUTHORIZATION, PAYMENT, CAPTURE, REFUND, VOID_AUTHORIZATION, VOID_CAPTURE,
      VOID_PAYMENT or VOID_REFUND; targetTransactionId: what a void voided (required), or the
      authorisation a capture captured, the payment or capture a refund refunded (without it,
      the ledger finds it as the gateway does: the single one with something left); a REFUND
      on an order the ledger does not hold is a standalone refund. gatewayCode APPROVED or
      DECLINED; amount a decimal string in the currency's decimals (a void's is its target's);
      acquirer.transactionId required on approvals (later captures, voids and refunds are
      sent by it); card optional and only masked; excessiveRefund true on a REFUND the
      acquirer made beyond what was captured for a merchant holding the Excessive Refund
      privilege (check it with admin show: this command cannot read the merchant's profile). Every line is checked first: one bad line
      and nothing is written (exit code 2, the field named). Then every record is decided in
      file order, each on the ledger as the lines before it leave it, by the gateway's rules
      for its operation (capture within what is authorised, refund within what is captured,
      void of a successful transaction that is the latest of its chain): one refused, or one
      that differs from what the ledger holds under its ids, and nothing is written (exit code
      1). Then each record is written whole, in file order: a merchant's retry of the PUT with
      the same ids and amount (a VOID's: the same target) is answered from it, without calling
      the acquirer. A record already in the ledger as given is left as it is. --dry-run prints
      what each line would record, decided the same way, and writes nothing.

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the ledger is in its schema).
`;

/** What the commands work on: the ledger's report, the resolution of an UNKNOWN outcome, the record of a lost transaction. */
export interface TransactionsLedger {
  unresolved: UnresolvedTransactions;
  resolution: Pick<ResolveUnknown, 'execute'>;
  lost: Pick<RecordLostTransaction, 'execute' | 'preview'>;
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
    case 'record-lost':
      return recordLost(values, ledger.lost, io, now);
    default:
      io.err(`error: unknown command '${command}'. Run with --help.`);
      return 2;
  }
}

/** The command's line, or its answer when the line alone answers it (subcommandLineOrAnswer): no database needed. */
export function transactionsLine(argv: string[], io: CommandIo): ReturnType<typeof parse> | number {
  // A subcommand given an option it does not read is refused, not run: `transactions resolve ...
  // --dry-run` resolved for real, `notifications resend --merchant M --limit 5` queued them all.
  return subcommandLineOrAnswer(io, () => parse(argv), TRANSACTIONS_USAGE, SUBCOMMANDS);
}

/** Each subcommand's own options (--json and --help go with any); none takes an argument. */
const SUBCOMMANDS: Record<string, SubcommandSpec> = {
  unresolved: { options: ['older-than-minutes', 'merchant', 'limit'], positionals: 1 },
  resolve: {
    options: ['merchant', 'order', 'transaction', 'outcome', 'acquirer-transaction-id', 'acquirer-id', 'authorization-code', 'approved-amount'],
    positionals: 1,
  },
  'record-lost': { options: ['file', 'dry-run'], positionals: 1 },
};

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
      'approved-amount': { type: 'string' },
      file: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
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
    io.err(`error: --outcome must be ${LEARNED_CODES.slice(0, -1).join(', ')} or ${LEARNED_CODES[LEARNED_CODES.length - 1]}`);
    return 2;
  }
  const approvedAmount = values['approved-amount'];
  if ((outcome === 'PARTIALLY_APPROVED') !== (approvedAmount !== undefined)) {
    io.err('error: --approved-amount is given with --outcome PARTIALLY_APPROVED, and only with it');
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
        ...(approvedAmount !== undefined ? { approvedAmount } : {}),
      },
    });
  } catch (err) {
    if (err instanceof GatewayError) {
      io.err(`error: ${err.explanation ?? err.code}`);
      return 1;
    }
    throw err;
  }
  const summary = transactionSummary(merchantId, resolved);
  io.out(
    values.json
      ? JSON.stringify(summary, null, 2)
      : summaryLine(summary.status === 'RESOLVED' ? 'Recorded:' : 'Already recorded, nothing written:', summary),
  );
  return 0;
}

/** A transaction summary as one tab-separated line, after what was done with it. */
function summaryLine(done: string, summary: ReturnType<typeof transactionSummary>): string {
  return [
    done,
    `${summary.merchantId}/${summary.orderId}/${summary.transactionId}`,
    summary.type,
    `${summary.amount} ${summary.currency}`,
    summary.result,
    summary.gatewayCode,
    `order ${summary.order.status}`,
    summary.notified ? 'notification written' : 'no notification',
  ].join('\t');
}

/**
 * `record-lost`: every line of the file read and checked before anything is decided; then every
 * record decided in file order, each on the ledger as the lines before it would leave it
 * (RecordLostTransaction.preview), before anything is written: one refused and nothing of the
 * file is written. Then each record written on its own, in file order (--dry-run: decided only).
 */
async function recordLost(values: Options, lost: TransactionsLedger['lost'], io: CommandIo, now: () => Date): Promise<number> {
  if (!values.file) {
    io.err('error: record-lost needs --file <path> (one JSON record a line)');
    return 2;
  }
  let text: string;
  try {
    // `--file -`: standard input, for `kubectl exec -i` into an image with no shell or tar. Read
    // as a stream: opening /dev/stdin fails (ENXIO) when standard input is a socket.
    text = values.file === '-' ? await textOf(process.stdin) : await readFile(values.file, 'utf8');
  } catch (err) {
    io.err(`error: cannot read ${values.file}: ${(err as Error).message}`);
    return 2;
  }
  const records = readLostRecords(text, now(), io);
  if (!records) {
    return 2;
  }
  const decided = await lost.preview(records.map(({ record }) => record));
  const summaries: LostSummary[] = [];
  let refused = 0;
  decided.forEach((answer, i) => {
    const { line, record } = records[i];
    if (answer instanceof GatewayError) {
      refused += 1;
      io.err(`error: line ${line} (${record.merchantId}/${record.orderId}/${record.transactionId}): refused, nothing written: ${explained(answer)}`);
    } else {
      summaries.push(transactionSummary(record.merchantId, answer));
    }
  });
  if (refused > 0 || values['dry-run']) {
    if (refused > 0) {
      io.err(`error: ${refused} refused line${refused === 1 ? '' : 's'}: nothing of the file ${values['dry-run'] ? 'would be' : 'was'} written`);
    }
    io.out(printed(values['dry-run'] ? summaries : [], values.json));
    return refused > 0 ? 1 : 0;
  }
  const done: LostSummary[] = [];
  for (const { line, record } of records) {
    try {
      done.push(transactionSummary(record.merchantId, await lost.execute(record)));
    } catch (err) {
      if (!(err instanceof GatewayError)) {
        throw err;
      }
      // The ledger changed since the check (the edge reopened?): what follows may depend on this line.
      io.err(`error: line ${line} (${record.merchantId}/${record.orderId}/${record.transactionId}): refused, nothing written from this line on: ${explained(err)}`);
      io.out(printed(done, values.json));
      return 1;
    }
  }
  io.out(printed(done, values.json));
  return 0;
}

type LostSummary = ReturnType<typeof transactionSummary<RecordLostResult['status']>>;

function printed(summaries: LostSummary[], json: boolean | undefined): string {
  return json ? JSON.stringify(summaries, null, 2) : summaries.map((summary) => summaryLine(LOST_RECORD_DONE[summary.status], summary)).join('\n') || '(no records)';
}

const LOST_RECORD_DONE: Record<RecordLostResult['status'], string> = {
  RECORDED: 'Recorded:',
  UNCHANGED: 'Already recorded, nothing written:',
  WOULD_RECORD: 'Would record (dry run):',
};

/** The file's records, or undefined once every bad line is printed with the field it names. */
function readLostRecords(text: string, now: Date, io: CommandIo): { line: number; record: LostTransaction }[] | undefined {
  const records: { line: number; record: LostTransaction }[] = [];
  let bad = 0;
  text.split(/\r?\n/).forEach((content, index) => {
    if (content.trim() === '') {
      return;
    }
    const line = index + 1;
    try {
      records.push({ line, record: parseLostTransaction(JSON.parse(content), now) });
    } catch (err) {
      if (!(err instanceof GatewayError) && !(err instanceof SyntaxError)) {
        throw err;
      }
      bad += 1;
      io.err(`error: line ${line}: ${err instanceof SyntaxError ? notJson(err) : explained(err)}`);
    }
  });
  if (bad > 0) {
    io.err(`error: ${bad} bad line${bad === 1 ? '' : 's'}: nothing written`);
    return undefined;
  }
  return records;
}

/**
 * Why a line is not JSON, without the line: V8 quotes up to 20 characters around some mistakes
 * (`Unexpected token 'x', ..."number": x512345000"... is not valid JSON`), which could be a card
 * number the record was not meant to hold. Its other messages name the mistake and its position only.
 */
function notJson(err: SyntaxError): string {
  return err.message.includes('"') ? 'not JSON (a line is one JSON object)' : `not JSON: ${err.message}`;
}

/** A refusal as the operator reads it: the field it names, and why. */
function explained(err: GatewayError): string {
  const field = err.field;
  return `${field ? `field '${field}': ` : ''}${err.explanation ?? err.code}`;
}

/** The transaction as the ledger now holds it, from its stored response; amounts in the currency's own decimals. */
function transactionSummary<S extends string>(merchantId: string, { status, body, notified }: { status: S; body: JsonObject; notified: boolean }) {
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
