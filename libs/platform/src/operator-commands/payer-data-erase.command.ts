import { parseArgs } from 'node:util';
import { CommandIo, lineOrAnswer } from './command-line';

/**
 * What an erasure of a payer's personal data did to one order (docs/decisions/payer-personal-data.md,
 * item 3), in counts, never the data: each service's erasure adds the counts of its own records.
 * ERASED: stripped now. WOULD_ERASE: a dry run's answer. UNCHANGED: nothing left to strip.
 * NOT_FOUND: the merchant has none of it (another merchant's is not looked at). REFUSED: the
 * service still needs the data (a browser payment's journey under way). Nothing is changed of a
 * NOT_FOUND or REFUSED order.
 */
export type ErasureStatus = 'ERASED' | 'WOULD_ERASE' | 'UNCHANGED' | 'NOT_FOUND' | 'REFUSED';

export interface OrderErasure {
  merchantId: string;
  orderId: string;
  status: ErasureStatus;
}

/**
 * An order whose erasure failed (a deadlock with the webhook dispatcher, a statement timeout, a
 * delivery still in flight after the erasure's wait): the error's message only, never its stack
 * nor anything of the order's data. Each service's erasure runs an order in database transactions
 * of its own, so what failed wrote nothing of that transaction; the command goes on with the
 * other orders, and running it again for this one finishes it (what was erased stays erased).
 */
export interface FailedErasure {
  merchantId: string;
  orderId: string;
  status: 'FAILED';
  error: string;
}

export interface EraseOrderCommand {
  merchantId: string;
  orderId: string;
  /** Count what would be stripped; write nothing, lock nothing. */
  dryRun: boolean;
  /**
   * Run by the retention job (PersonalDataRetention) for orders idle since `idleBefore`, not by an
   * operator: the order is stripped only if its last operation (or payment step) is still before
   * then once its rows are locked (one in use again since the job read it is left whole,
   * UNCHANGED); not logged per order (the run logs its counts); nothing waited for that the job
   * can do on a later run instead.
   */
  retention?: { idleBefore: Date };
}

export interface OrderEraser<E extends OrderErasure> {
  execute(command: EraseOrderCommand): Promise<E>;
}

/**
 * One count of a service's erasure, as its output names it: a number of records stripped
 * (`2 stored responses`), or, `flag`, whether the order's one record of the kind was
 * (`order details stripped`), whose total counts the orders where it was.
 */
export interface ErasureCount<Key extends string> {
  key: Key;
  one: string;
  many?: string;
  flag?: boolean;
}

/** A service's `payer-data erase`: its usage, its counts, and what it says of an order it leaves. */
export interface PayerDataEraseCommand<E extends OrderErasure> {
  usage: string;
  counts: ErasureCount<keyof E & string>[];
  /** Why an order is NOT_FOUND, as the error line says it. */
  notFound: string;
  /** Why an order is REFUSED and what the operator does then, for an erasure that may refuse one. */
  refused?: string;
}

/**
 * `payer-data erase <merchantId> <orderId> [...] [--dry-run] [--json]` over one service's
 * erasure (the mains and the tests call it): each order named once, in the order named. Prints
 * counts only. Exit code 0: done, or nothing left to erase; 1: an order not found, refused or
 * failed (said on stderr per order; the others are erased: one order's failure does not stop the
 * command, amendment 2026-11-27 of docs/decisions/payer-personal-data.md); 2: usage. A database
 * unreachable from the start fails the command before any order (its main's exit code 1).
 */
export async function runPayerDataErase<E extends OrderErasure>(
  argv: string[],
  command: PayerDataEraseCommand<E>,
  erasure: OrderEraser<E>,
  io: CommandIo,
): Promise<number> {
  const commandLine = payerDataEraseLine(argv, io, command.usage);
  if (typeof commandLine === 'number') {
    return commandLine;
  }
  const { values, positionals } = commandLine;
  const [, merchantId, ...orderIds] = positionals;
  const dryRun = values['dry-run'];
  const done: (E | FailedErasure)[] = [];
  // An order named twice is erased once.
  for (const orderId of new Set(orderIds)) {
    let erased: E;
    try {
      erased = await erasure.execute({ merchantId, orderId, dryRun });
    } catch (err) {
      const failed: FailedErasure = { merchantId, orderId, status: 'FAILED', error: messageOf(err) };
      io.err(`error: ${merchantId}/${orderId}: failed: ${failed.error}: run the command again for this order`);
      done.push(failed);
      continue;
    }
    if (erased.status === 'NOT_FOUND') {
      io.err(`error: ${merchantId}/${orderId}: ${command.notFound}: nothing changed`);
    } else if (erased.status === 'REFUSED') {
      io.err(`error: ${merchantId}/${orderId}: ${command.refused}: nothing changed`);
    }
    done.push(erased);
  }
  const total = totalOf(command, done);
  io.out(
    values.json
      ? JSON.stringify({ orders: done, total }, null, 2)
      : [...done.filter(found).map((erased) => line(command, erased)), totalLine(command, total, dryRun)].join('\n'),
  );
  return total.notFound > 0 || (total.refused ?? 0) > 0 || (total.failed ?? 0) > 0 ? 1 : 0;
}

/**
 * What the command says of an order's failure: the error's message, on one line, never its stack.
 * The erasures' own errors name ids only; the database's (a deadlock, a timeout, a lock) name no
 * value: a payer's data travels as query parameters, and where Postgres quotes a value it puts it
 * in the error's detail, which is not printed.
 */
function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, ' ').trim() || 'unknown error';
}

/**
 * The command's line, or its answer when the line alone answers it (lineOrAnswer; an unknown
 * command, no merchant or no order named: a usage error): no database needed.
 */
export function payerDataEraseLine(argv: string[], io: CommandIo, usage: string): ReturnType<typeof parse> | number {
  const line = lineOrAnswer(io, () => parse(argv), usage);
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

const DONE: Record<ErasureStatus, string> = {
  ERASED: 'Erased:',
  WOULD_ERASE: 'Would erase (dry run):',
  UNCHANGED: 'Nothing to erase, nothing changed:',
  NOT_FOUND: 'Not found:',
  REFUSED: 'Refused:',
};

/** NOT_FOUND, REFUSED and FAILED orders are said on stderr, not listed with the others. */
const found = <E extends OrderErasure>(erased: E | FailedErasure): erased is E =>
  erased.status !== 'NOT_FOUND' && erased.status !== 'REFUSED' && erased.status !== 'FAILED';

function line<E extends OrderErasure>({ counts }: PayerDataEraseCommand<E>, erased: E): string {
  const counted = counts.map(({ key, one, many, flag }) => {
    const value = erased[key];
    return flag ? `${one} ${value ? 'stripped' : 'unchanged'}` : plural(Number(value), one, many);
  });
  return [DONE[erased.status], `${erased.merchantId}/${erased.orderId}`, counted.join(', ')].join('\t');
}

interface Total {
  erased: number;
  wouldErase: number;
  unchanged: number;
  notFound: number;
  /** Only for an erasure that may refuse an order. */
  refused?: number;
  /** Only when an order's erasure failed (none in a run where all went through). */
  failed?: number;
  [count: string]: number | undefined;
}

function totalOf<E extends OrderErasure>({ counts, refused }: PayerDataEraseCommand<E>, all: (E | FailedErasure)[]): Total {
  const count = (status: ErasureStatus | 'FAILED') => all.filter((e) => e.status === status).length;
  const failed = count('FAILED');
  const total: Total = {
    erased: count('ERASED'),
    wouldErase: count('WOULD_ERASE'),
    unchanged: count('UNCHANGED'),
    notFound: count('NOT_FOUND'),
    ...(refused === undefined ? {} : { refused: count('REFUSED') }),
    ...(failed === 0 ? {} : { failed }),
  };
  // A failed order has no counts: what its erasure would have changed is not known.
  const done = all.filter((e): e is E => e.status !== 'FAILED');
  for (const { key, flag } of counts) {
    total[key] = done.reduce<number>((sum, e) => sum + (flag ? (e[key] ? 1 : 0) : Number(e[key])), 0);
  }
  return total;
}

function totalLine<E extends OrderErasure>({ counts }: PayerDataEraseCommand<E>, total: Total, dryRun: boolean): string {
  const orders = dryRun ? `${total.wouldErase} would be erased` : `${total.erased} erased`;
  const refused = total.refused === undefined ? '' : `, ${total.refused} refused`;
  const failed = total.failed === undefined ? '' : `, ${total.failed} failed`;
  const changes = counts.map(({ key, one, many }) => plural(total[key] ?? 0, one, many)).join(', ');
  return `Orders: ${orders}, ${total.unchanged} with nothing to erase, ${total.notFound} not found${refused}${failed}. ${dryRun ? 'Would change' : 'Changed'}: ${changes}.`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
