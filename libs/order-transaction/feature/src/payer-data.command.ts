import { parseArgs } from 'node:util';
import type { ErasePayerData, PayerDataErasure } from '@gateway/order-transaction/domain';
import { lineOrAnswer } from './command-line';
import type { CommandIo } from './operator-commands';

export const PAYER_DATA_USAGE = `Usage: node dist/apps/order-transaction/src/main.js payer-data erase <merchantId> <orderId> [<orderId> ...] [--dry-run] [--json]
       (standalone profile: node dist/apps/gateway/src/main.js payer-data erase ...)

A payer's personal data in the ledger (docs/decisions/payer-personal-data.md), for a payer's
erasure request the merchant forwards:
  erase <merchantId> <orderId> [...]
      strip the payer's personal data (billing, shipping, customer, device, recipient, name on
      card, account holders and e-mails, the order's notes and custom fields) from the named
      orders of the merchant: from each order's details, every stored operation response, and
      the webhook notifications still to be sent (PENDING) or sent again (FAILED). Kept: ids,
      amounts, currency, status, result and gateway codes, the masked card, the acquirer's
      references, and what the merchant's replay of a request is matched on, so GET and a
      replay then answer the same money without those fields, and a replay still has no side
      effect. Each order in a database transaction of its own, holding the order's row as the
      ledger's writes do. Prints counts only, never the data. Running it again changes nothing
      (and says so). --dry-run prints what it would change and writes nothing.
      Exit code 0: done (or nothing left to erase); 1: an order the merchant does not have (the
      others are erased); 2: usage.
      Browser payments' stored requests are erased by browser-payment's own command.

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the ledger is in its schema).
`;

/** The commands themselves, over the ledger's erasure (the mains and the tests call it). */
export async function runPayerDataCommand(argv: string[], erasure: Pick<ErasePayerData, 'execute'>, io: CommandIo): Promise<number> {
  const commandLine = payerDataLine(argv, io);
  if (typeof commandLine === 'number') {
    return commandLine;
  }
  const { values, positionals } = commandLine;
  const [, merchantId, ...orderIds] = positionals;
  const dryRun = values['dry-run'];
  const done: PayerDataErasure[] = [];
  // An order named twice is erased once.
  for (const orderId of new Set(orderIds)) {
    const erased = await erasure.execute({ merchantId, orderId, dryRun });
    if (erased.status === 'NOT_FOUND') {
      io.err(`error: ${merchantId}/${orderId}: the merchant has no such order: nothing changed`);
    }
    done.push(erased);
  }
  const total = totalOf(done);
  io.out(values.json ? JSON.stringify({ orders: done, total }, null, 2) : [...done.filter(found).map(line), totalLine(total, dryRun)].join('\n'));
  return total.notFound > 0 ? 1 : 0;
}

/**
 * The command's line, or its answer when the line alone answers it (lineOrAnswer; an unknown
 * command, no merchant or no order named: a usage error): no database needed.
 */
export function payerDataLine(argv: string[], io: CommandIo): ReturnType<typeof parse> | number {
  const line = lineOrAnswer(io, () => parse(argv), PAYER_DATA_USAGE);
  if (typeof line === 'number') {
    return line;
  }
  const [command, merchantId, ...orderIds] = line.positionals;
  if (command !== 'erase') {
    io.err(`error: unknown command '${command}'. Run with --help.`);
    return 2;
  }
  if (!merchantId || orderIds.length === 0) {
    io.err('error: erase needs <merchantId> and at least one <orderId>');
    return 2;
  }
  return line;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}

const DONE: Record<PayerDataErasure['status'], string> = {
  ERASED: 'Erased:',
  WOULD_ERASE: 'Would erase (dry run):',
  UNCHANGED: 'Nothing to erase, nothing changed:',
  NOT_FOUND: 'Not found:',
};

const found = (erased: PayerDataErasure) => erased.status !== 'NOT_FOUND';

function line(erased: PayerDataErasure): string {
  return [DONE[erased.status], `${erased.merchantId}/${erased.orderId}`, counted(erased)].join('\t');
}

function counted({ details, responses, notifications }: Pick<PayerDataErasure, 'details' | 'responses' | 'notifications'>): string {
  return [`order details ${details ? 'stripped' : 'unchanged'}`, plural(responses, 'stored response'), plural(notifications, 'notification')].join(', ');
}

function totalOf(done: PayerDataErasure[]) {
  const count = (status: PayerDataErasure['status']) => done.filter((e) => e.status === status).length;
  return {
    erased: count('ERASED'),
    wouldErase: count('WOULD_ERASE'),
    unchanged: count('UNCHANGED'),
    notFound: count('NOT_FOUND'),
    details: done.filter((e) => e.details).length,
    responses: done.reduce((sum, e) => sum + e.responses, 0),
    notifications: done.reduce((sum, e) => sum + e.notifications, 0),
  };
}

function totalLine(total: ReturnType<typeof totalOf>, dryRun: boolean): string {
  const orders = dryRun ? `${total.wouldErase} would be erased` : `${total.erased} erased`;
  const changes = `${plural(total.details, 'order details', 'order details')}, ${plural(total.responses, 'stored response')}, ${plural(total.notifications, 'notification')}`;
  return `Orders: ${orders}, ${total.unchanged} with nothing to erase, ${total.notFound} not found. ${dryRun ? 'Would change' : 'Changed'}: ${changes}.`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
