import { isStandaloneRefundOrder, type OrderStatus, type TransactionResult, type TransactionType } from '@gateway/contracts';
import { Money } from '@gateway/money';

/** What the ledger's arithmetic needs of a transaction. */
export interface LedgerEntry {
  type: TransactionType;
  /** Exact decimal text in the order's currency. */
  amount: string;
  result: TransactionResult;
  /** The transaction id and the one it refers to (a void's target): rules per target need them. */
  id?: string;
  targetTransactionId?: string | null;
}

export interface OrderTotals {
  totalAuthorizedAmount: Money;
  totalCapturedAmount: Money;
  totalRefundedAmount: Money;
}

export interface OrderState extends OrderTotals {
  status: OrderStatus;
}

/**
 * Only successful transactions move totals. A PAYMENT authorises and captures at once; a void
 * takes back what the transaction it voids added (the void carries that amount). An
 * AUTHORIZATION_UPDATE adds its amount to the authorised total (an incremental authorisation).
 */
const AUTHORIZING: TransactionType[] = ['AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'PAYMENT'];
const UNAUTHORIZING: TransactionType[] = ['VOID_AUTHORIZATION', 'VOID_PAYMENT'];
const CAPTURING: TransactionType[] = ['CAPTURE', 'PAYMENT'];
const UNCAPTURING: TransactionType[] = ['VOID_CAPTURE', 'VOID_PAYMENT'];
const VOIDS_OF_INITIAL: TransactionType[] = ['VOID_AUTHORIZATION', 'VOID_PAYMENT', 'VOID_CAPTURE'];
/** Operations that move (or would move) money; an order of only failed ones is FAILED. */
const FUNDS_OPERATIONS: TransactionType[] = [
  'AUTHORIZATION',
  'AUTHORIZATION_UPDATE',
  'PAYMENT',
  'CAPTURE',
  'REFUND',
  'REFUND_REQUEST',
];
/** Not known to have failed: the money may still move. */
const OPEN_RESULTS: TransactionResult[] = ['PENDING', 'UNKNOWN'];

/** The exact sum of the amounts of the entries of these types and results. */
export function sumOf(
  currency: string,
  entries: readonly LedgerEntry[],
  types: readonly TransactionType[],
  results: readonly TransactionResult[] = ['SUCCESS'],
): Money {
  let total = Money.zero(currency);
  for (const e of entries) {
    if (types.includes(e.type) && results.includes(e.result)) {
      total = total.plus(amountOf(currency, e));
    }
  }
  return total;
}

/** The exact sum of the entries' amounts, in their order (the ledger rules' totals of one transaction's chain). */
export function amountsOf(currency: string, entries: readonly LedgerEntry[]): Money {
  let total = Money.zero(currency);
  for (const e of entries) {
    total = total.plus(amountOf(currency, e));
  }
  return total;
}

/**
 * An entry's amount as Money: Money.of(entry.amount, currency), parsed once per entry object
 * and reused while its amount text and the currency asked for are the ones parsed (Money is
 * immutable). The ledger's rules and the derivation sum the same entries many times over.
 */
export function amountOf(currency: string, entry: LedgerEntry): Money {
  const parsed = parsedAmounts.get(entry);
  if (parsed !== undefined && parsed.text === entry.amount && parsed.money.currency === currency) {
    return parsed.money;
  }
  const money = Money.of(entry.amount, currency);
  parsedAmounts.set(entry, { text: entry.amount, money });
  return money;
}

const parsedAmounts = new WeakMap<LedgerEntry, { text: string; money: Money }>();

/**
 * The three totals in one pass over the entries: each sum takes the same amounts in the same
 * order as sumOf would (so the same exact decimals), and the voids are taken off at the end.
 */
export function deriveTotals(currency: string, entries: readonly LedgerEntry[]): OrderTotals {
  let authorizing = Money.zero(currency);
  let unauthorizing = authorizing;
  let capturing = authorizing;
  let uncapturing = authorizing;
  let refunding = authorizing;
  let unrefunding = authorizing;
  for (const e of entries) {
    if (e.result !== 'SUCCESS') continue;
    const type = e.type;
    if (AUTHORIZING.includes(type)) authorizing = authorizing.plus(amountOf(currency, e));
    if (UNAUTHORIZING.includes(type)) unauthorizing = unauthorizing.plus(amountOf(currency, e));
    if (CAPTURING.includes(type)) capturing = capturing.plus(amountOf(currency, e));
    if (UNCAPTURING.includes(type)) uncapturing = uncapturing.plus(amountOf(currency, e));
    if (type === 'REFUND') refunding = refunding.plus(amountOf(currency, e));
    if (type === 'VOID_REFUND') unrefunding = unrefunding.plus(amountOf(currency, e));
  }
  return {
    totalAuthorizedAmount: authorizing.minus(unauthorizing),
    totalCapturedAmount: capturing.minus(uncapturing),
    totalRefundedAmount: refunding.minus(unrefunding),
  };
}

/**
 * The order's totals and status, derived from its transactions in the order they were
 * recorded (ARCHITECTURE 4.10; the rules and their reasons are in
 * docs/decisions/order-status-derivation.md).
 */
export function deriveOrderState(currency: string, entries: readonly LedgerEntry[]): OrderState {
  const totals = deriveTotals(currency, entries);
  return { ...totals, status: deriveStatus(entries, totals) };
}

function deriveStatus(entries: readonly LedgerEntry[], totals: OrderTotals): OrderStatus {
  const { totalAuthorizedAmount: authorized, totalCapturedAmount: captured, totalRefundedAmount: refunded } = totals;
  const has = (types: TransactionType[], results: TransactionResult[]) =>
    entries.some((e) => types.includes(e.type) && results.includes(e.result));

  if (has(['REFUND_REQUEST'], ['SUCCESS', 'PENDING'])) {
    return 'REFUND_REQUESTED';
  }
  if (refunded.isPositive()) {
    if (isStandaloneRefundOrder(entries)) {
      return 'REFUNDED';
    }
    const versusCaptured = refunded.compare(captured);
    return versusCaptured > 0 ? 'EXCESSIVELY_REFUNDED' : versusCaptured === 0 ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  }
  if (captured.isPositive()) {
    return captured.compare(authorized) >= 0 ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
  }
  if (authorized.isPositive()) {
    return 'AUTHORIZED';
  }
  // No money is held or moved from here on.
  if (has(FUNDS_OPERATIONS, OPEN_RESULTS)) {
    return 'INITIATED';
  }
  // The initial transaction voided: an authorisation or payment, or the refund that opened a
  // standalone refund order.
  if (has(VOIDS_OF_INITIAL, ['SUCCESS']) || (isStandaloneRefundOrder(entries) && has(['VOID_REFUND'], ['SUCCESS']))) {
    return 'CANCELLED';
  }
  // A funds operation failed. (One that succeeded and is here was voided whole: a linked refund
  // under the Excessive Refund privilege on an order that moved no money, voided. The order reads
  // as before it, as a voided refund on a captured order does: rule 8 on a verified order.)
  if (has(FUNDS_OPERATIONS, ['FAILURE'])) {
    return 'FAILED';
  }
  return has(['VERIFICATION'], ['SUCCESS']) ? 'VERIFIED' : 'FAILED';
}
