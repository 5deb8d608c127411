import { GatewayError, isJsonObject, JsonObject, JsonValue, TransactionResult, TransactionType } from '@gateway/contracts';
import type { LockedOrder, TransactionRow } from '@gateway/order-transaction/data-access';
import { holdsSchemeCardNumber } from '@gateway/crypto';
import { Money, MoneyError } from '@gateway/money';
import { resultOf } from '../resolve-unknown/learned-outcome';

/**
 * The outcomes a lost transaction is recorded with. Not a partial approval: a record gives the
 * amount that moved, and a partial approval's requested amount and tax are not in the acquirer's
 * records the file is made from.
 */
const LOST_CODES = ['APPROVED', 'DECLINED'] as const;
type LostCode = (typeof LOST_CODES)[number];

/**
 * The transaction types `transactions record-lost` records, with the operation that creates
 * each (its stored response is kept under it, and a merchant's retry of that operation is
 * answered from it). CAPTURE, REFUND and the VOID_* types act on an earlier transaction of the
 * order and are decided by that operation's own rules (docs/decisions/backup-and-restore.md,
 * amendments 2026-11-26). REFUND_REQUEST and AUTHORIZATION_UPDATE are no acquirer's records.
 */
export const LOST_TRANSACTION_TYPES = {
  AUTHORIZATION: 'AUTHORIZE',
  PAYMENT: 'PAY',
  CAPTURE: 'CAPTURE',
  REFUND: 'REFUND',
  VOID_AUTHORIZATION: 'VOID',
  VOID_CAPTURE: 'VOID',
  VOID_PAYMENT: 'VOID',
  VOID_REFUND: 'VOID',
} as const satisfies Partial<Record<TransactionType, string>>;
export type LostTransactionType = keyof typeof LOST_TRANSACTION_TYPES;

/** The types that open or fund an order; every other one acts on an earlier transaction of it. */
const INITIAL_TYPES: readonly LostTransactionType[] = ['AUTHORIZATION', 'PAYMENT'];

/** Whether the record acts on an earlier transaction of its order (a capture, refund or void). */
export function actsOnEarlier(type: LostTransactionType): boolean {
  return !INITIAL_TYPES.includes(type);
}

/**
 * A card transaction the acquirer processed and the ledger never began (its rows were lost in a
 * restore to an earlier point), as the acquirer's records give it. No card number: at most the
 * number as the acquirer's records mask it.
 */
export interface LostTransaction {
  merchantId: string;
  orderId: string;
  transactionId: string;
  type: LostTransactionType;
  apiOperation: string;
  /**
   * The transaction it acts on (a void's target, required; a capture's authorisation or a
   * refund's payment or capture, which without it the ledger identifies as the operation does).
   */
  targetTransactionId?: string;
  amount: Money;
  /** APPROVED: the money moved (authorised, or captured for a PAYMENT). DECLINED: it did not. */
  gatewayCode: LostCode;
  result: TransactionResult;
  /** transaction.acquirer: id (ALWAYS PROVIDED), the acquirer's transaction id, its date and time. */
  acquirer: { id: string; transactionId?: string; date?: string; time?: string };
  /** transaction.receipt: the retrieval reference number (RRN). */
  receipt?: string;
  /** transaction.authorizationCode: the issuer's approval code. */
  authorizationCode?: string;
  /** response.acquirerCode */
  acquirerCode?: string;
  /** When the acquirer processed it: the transaction's timeOfRecord, a new order's creation time. */
  time: Date;
  /** sourceOfFunds.provided.card as the acquirer's records show it (number masked 6.4 at most). */
  card?: { number?: string; brand?: string; expiry?: string };
  /**
   * A REFUND only: the operator states that the merchant held the Excessive Refund privilege
   * when the acquirer refunded it, so the refund is decided as the gateway decides a privileged
   * merchant's (beyond what was captured; the order EXCESSIVELY_REFUNDED). The merchant's profile
   * is the edge's, which this command cannot read (backup-and-restore.md, amendment of 2026-11-26
   * on the privilege).
   */
  excessiveRefund?: true;
}

const FIELDS = [
  'merchantId',
  'orderId',
  'transactionId',
  'type',
  'targetTransactionId',
  'amount',
  'currency',
  'gatewayCode',
  'acquirer',
  'receipt',
  'authorizationCode',
  'acquirerCode',
  'time',
  'card',
  'excessiveRefund',
];
const ID = /^[^\x00-\x1f\x7f]{1,40}$/;
const REFERENCE = /^[^\x00-\x1f\x7f]{1,100}$/;
const ASCII_100 = /^[\x20-\x7e]{1,100}$/;
/** A card number as a masked record shows it: at most 6 digits, then x, then the last 4; 12 to 19 long. */
const MASKED_NUMBER = /^[0-9]{0,6}x{3,}[0-9]{4}$/;
const EXPIRY = /^(0[1-9]|1[0-2])[0-9]{2}$/;
/** The acquirer's time: ISO 8601 with its offset, as its records carry it. */
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** The acquirer's clock and ours may differ by this much; a time further ahead is a mistake. */
const CLOCK_SKEW_MS = 5 * 60_000;

function bad(field: string, why: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `${field} ${why.replace(/\.$/, '')}.`);
}

/**
 * A short code the response shows as it is (the RRN: 12 digits; an approval code: 6; the
 * acquirer's response code: 2 or 3): one holding a card number is a card number pasted into
 * the wrong column, refused without echoing it, since it would be stored and shown in clear.
 * Not the acquirer's transaction id: a long numeric reference may pass the card number check by
 * chance, and refusing it would leave the transaction unrecordable.
 */
function shortCode(value: string | undefined, field: string): string | undefined {
  if (value !== undefined && holdsSchemeCardNumber(value)) {
    throw bad(field, "holds a card number: the acquirer's records give the card in card.number, masked");
  }
  return value;
}

function absent(field: string): GatewayError {
  return GatewayError.invalidField(field, 'MISSING', `${field} is required.`);
}

/**
 * One record of the acquirer's as the operator gives it (a JSON object), checked with the
 * ledger's own rules: ids as the path's, a known transaction type, a decimal string amount in
 * the currency's decimals within the API's bounds (Money.ofRequest), the acquirer's references
 * as the spec's fields hold them. Refuses the first bad field, named, as a GatewayError.
 */
export function parseLostTransaction(value: unknown, now: Date): LostTransaction {
  if (!isJsonObject(value)) {
    throw GatewayError.invalidRequest('A record is a JSON object.');
  }
  const record = value;
  const unknown = Object.keys(record).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined) {
    throw GatewayError.invalidField(unknown, 'UNSUPPORTED', `${unknown} is not a field of a record (${FIELDS.join(', ')}).`);
  }
  const text = (field: string, pattern: RegExp, why: string, required = true): string | undefined => {
    const v = record[field];
    if (v === undefined) {
      if (required) throw absent(field);
      return undefined;
    }
    if (typeof v !== 'string' || !pattern.test(v)) {
      throw bad(field, why);
    }
    return v;
  };
  const merchantId = text('merchantId', ID, 'must be 1 to 40 characters without control characters')!;
  const orderId = text('orderId', ID, 'must be 1 to 40 characters without control characters')!;
  const transactionId = text('transactionId', ID, 'must be 1 to 40 characters without control characters')!;
  const type = record.type;
  if (type === undefined) {
    throw absent('type');
  }
  if (typeof type !== 'string' || !Object.hasOwn(LOST_TRANSACTION_TYPES, type)) {
    throw bad('type', `must be one of ${Object.keys(LOST_TRANSACTION_TYPES).join(', ')}`);
  }
  const lostType = type as LostTransactionType;
  const targetTransactionId = text('targetTransactionId', ID, 'must be 1 to 40 characters without control characters', false);
  if (targetTransactionId === undefined && lostType.startsWith('VOID_')) {
    throw GatewayError.invalidField('targetTransactionId', 'MISSING', 'targetTransactionId is required on a void: the transaction it voided.');
  }
  if (targetTransactionId !== undefined && !actsOnEarlier(lostType)) {
    throw GatewayError.invalidField('targetTransactionId', 'UNSUPPORTED', `targetTransactionId is not a field of ${lostType === 'AUTHORIZATION' ? 'an' : 'a'} ${lostType}: it acts on no earlier transaction.`);
  }
  const excessiveRefund = excessiveRefundOf(record.excessiveRefund, lostType);
  const amount = moneyOf(record.amount, record.currency);
  if (!amount.isPositive()) {
    throw bad('amount', 'must be greater than zero');
  }
  const gatewayCode = record.gatewayCode;
  if (gatewayCode === undefined) {
    throw absent('gatewayCode');
  }
  if (typeof gatewayCode !== 'string' || !(LOST_CODES as readonly string[]).includes(gatewayCode)) {
    throw bad('gatewayCode', `must be one of ${LOST_CODES.join(', ')}`);
  }
  const code = gatewayCode as LostCode;
  const acquirer = acquirerOf(record.acquirer, code);
  const receipt = shortCode(text('receipt', ASCII_100, 'must be 1 to 100 printable ASCII characters', false), 'receipt');
  const authorizationCode = shortCode(text('authorizationCode', ASCII_100, 'must be 1 to 100 printable ASCII characters', false), 'authorizationCode');
  if (authorizationCode !== undefined && code !== 'APPROVED') {
    throw bad('authorizationCode', 'is given on approvals only');
  }
  const acquirerCode = shortCode(text('acquirerCode', ASCII_100, 'must be 1 to 100 printable ASCII characters', false), 'acquirerCode');
  const timeText = text('time', TIME, 'must be an ISO 8601 date and time with its offset (2026-11-26T10:15:00Z)')!;
  const time = new Date(timeText);
  if (Number.isNaN(time.getTime())) {
    throw bad('time', 'is not a valid date and time');
  }
  if (time.getTime() > now.getTime() + CLOCK_SKEW_MS) {
    throw bad('time', 'is in the future');
  }
  return {
    merchantId,
    orderId,
    transactionId,
    type: lostType,
    apiOperation: LOST_TRANSACTION_TYPES[lostType],
    ...(targetTransactionId !== undefined ? { targetTransactionId } : {}),
    amount,
    gatewayCode: code,
    result: resultOf(code),
    acquirer,
    ...(receipt !== undefined ? { receipt } : {}),
    ...(authorizationCode !== undefined ? { authorizationCode } : {}),
    ...(acquirerCode !== undefined ? { acquirerCode } : {}),
    time,
    ...cardOf(record.card),
    ...(excessiveRefund ? { excessiveRefund } : {}),
  };
}

/** `excessiveRefund`: true or false (the default) on a REFUND; no other type refunds. */
function excessiveRefundOf(value: JsonValue | undefined, type: LostTransactionType): true | undefined {
  if (value === undefined || value === false) return undefined;
  if (value !== true) throw bad('excessiveRefund', 'must be true or false (JSON booleans)');
  if (type !== 'REFUND') {
    throw GatewayError.invalidField('excessiveRefund', 'UNSUPPORTED', `excessiveRefund is a field of a REFUND only, not of ${type === 'AUTHORIZATION' ? 'an' : 'a'} ${type}.`);
  }
  return true;
}

/** Decimal only: a JSON number could already have been rounded by whoever wrote it. */
function moneyOf(amount: JsonValue | undefined, currency: JsonValue | undefined): Money {
  if (currency === undefined) throw absent('currency');
  if (amount === undefined) throw absent('amount');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
    throw bad('currency', 'must be an ISO 4217 currency code (3 capital letters)');
  }
  if (typeof amount !== 'string') {
    throw bad('amount', 'must be a decimal string ("12.50"), not a JSON number');
  }
  try {
    return Money.ofRequest(amount, currency);
  } catch (err) {
    if (err instanceof MoneyError && err.code === 'UNKNOWN_CURRENCY') {
      throw bad('currency', `'${currency}' is not an ISO 4217 currency code`);
    }
    if (err instanceof MoneyError) {
      throw bad('amount', `'${amount.slice(0, 20)}' is invalid: ${err.message}`);
    }
    throw err;
  }
}

function acquirerOf(value: JsonValue | undefined, code: LostCode): LostTransaction['acquirer'] {
  if (value === undefined) throw absent('acquirer');
  if (!isJsonObject(value)) throw bad('acquirer', 'must be an object (id, transactionId, date, time)');
  const allowed = ['id', 'transactionId', 'date', 'time'];
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) {
    throw GatewayError.invalidField(`acquirer.${extra}`, 'UNSUPPORTED', `acquirer.${extra} is not a field of a record's acquirer (${allowed.join(', ')}).`);
  }
  const field = (key: string, pattern: RegExp, why: string): string | undefined => {
    const v = value[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !pattern.test(v)) throw bad(`acquirer.${key}`, why);
    return v;
  };
  const id = field('id', /^[^\x00-\x1f\x7f]{1,40}$/, 'must be 1 to 40 characters without control characters');
  if (id === undefined) throw absent('acquirer.id');
  const transactionId = field('transactionId', REFERENCE, 'must be 1 to 100 characters without control characters');
  if (transactionId === undefined && code === 'APPROVED') {
    // Captures, voids and refunds of it are sent to the acquirer by this reference.
    throw GatewayError.invalidField('acquirer.transactionId', 'MISSING', 'acquirer.transactionId is required on approvals: later operations are sent by it.');
  }
  const date = field('date', REFERENCE, 'must be 1 to 100 characters without control characters');
  const time = field('time', REFERENCE, 'must be 1 to 100 characters without control characters');
  return { id, ...(transactionId !== undefined ? { transactionId } : {}), ...(date !== undefined ? { date } : {}), ...(time !== undefined ? { time } : {}) };
}

/** The card as the acquirer's records show it: never a full number (the value is then not repeated). */
function cardOf(value: JsonValue | undefined): Pick<LostTransaction, 'card'> {
  if (value === undefined) return {};
  if (!isJsonObject(value)) throw bad('card', 'must be an object (number, brand, expiry)');
  const extra = Object.keys(value).find((key) => !['number', 'brand', 'expiry'].includes(key));
  if (extra !== undefined) {
    throw GatewayError.invalidField(`card.${extra}`, 'UNSUPPORTED', `card.${extra} is not kept for a recorded transaction (number masked, brand, expiry).`);
  }
  const { number, brand, expiry } = value;
  if (number !== undefined && (typeof number !== 'string' || number.length < 12 || number.length > 19 || !MASKED_NUMBER.test(number))) {
    throw GatewayError.invalidField('card.number', 'INVALID', 'card.number must be masked as the acquirer shows it (512345xxxxxx0008): a full card number is never recorded.');
  }
  if (brand !== undefined && (typeof brand !== 'string' || !/^[A-Z_]{1,40}$/.test(brand))) {
    throw bad('card.brand', 'must be the brand in capitals (MASTERCARD, VISA, ...)');
  }
  if (expiry !== undefined && (typeof expiry !== 'string' || !EXPIRY.test(expiry))) {
    throw bad('card.expiry', 'must be MMYY');
  }
  const card = {
    ...(number !== undefined ? { number: number as string } : {}),
    ...(brand !== undefined ? { brand: brand as string } : {}),
    ...(expiry !== undefined ? { expiry: expiry as string } : {}),
  };
  return Object.keys(card).length > 0 ? { card } : {};
}

/**
 * The response of the operation as the acquirer's answer would have made it, without what the
 * ledger owns and completes (completeResponse): the card only as the records mask it (a
 * `sourceOfFunds` of type CARD with no card group when they show none), the acquirer's
 * references where a live answer puts them, and its time as the transaction's timeOfRecord.
 * An operation on an earlier transaction funds (or unfunds) its target's source, so without a
 * card of its own it shows the target's, as the live CAPTURE, VOID and linked REFUND do.
 */
export function lostTransactionResponse(lost: LostTransaction, targetBody: JsonObject | null = null): JsonObject {
  const transaction: JsonObject = { acquirer: { ...lost.acquirer } };
  if (lost.authorizationCode !== undefined) transaction.authorizationCode = lost.authorizationCode;
  if (lost.receipt !== undefined) transaction.receipt = lost.receipt;
  const targetFunds = targetBody !== null && isJsonObject(targetBody.sourceOfFunds) ? targetBody.sourceOfFunds : undefined;
  return {
    sourceOfFunds: lost.card ? { type: 'CARD', provided: { card: cardForResponse(lost.card) } } : (targetFunds ?? { type: 'CARD' }),
    ...(lost.acquirerCode !== undefined ? { response: { acquirerCode: lost.acquirerCode } } : {}),
    transaction,
    timeOfRecord: lost.time.toISOString(),
  };
}

/** The card group as every response carries it: the expiry as month and two-digit year. */
function cardForResponse(card: NonNullable<LostTransaction['card']>): JsonObject {
  const { expiry, ...rest } = card;
  return { ...rest, ...(expiry !== undefined ? { expiry: { month: String(Number(expiry.slice(0, 2))), year: expiry.slice(2) } } : {}) };
}

/**
 * The transaction already on the order under the record's id: the same record (the command run
 * again) is answered as stored; anything else is the ledger's, never overwritten.
 */
export function sameRecord(existing: TransactionRow, storedBody: JsonObject | undefined, lost: LostTransaction): boolean {
  const acquirer = storedBody && isJsonObject(storedBody.transaction) && isJsonObject(storedBody.transaction.acquirer) ? storedBody.transaction.acquirer : {};
  return (
    existing.apiOperation === lost.apiOperation &&
    existing.type === lost.type &&
    existing.fundingType === 'CARD' &&
    existing.result === lost.result &&
    existing.gatewayCode === lost.gatewayCode &&
    Money.of(existing.amount, existing.currency).equals(lost.amount) &&
    acquirer.transactionId === lost.acquirer.transactionId &&
    // Without a target named, the one the ledger identified when it was recorded.
    (lost.targetTransactionId === undefined || existing.targetTransactionId === lost.targetTransactionId)
  );
}

export function conflict(lost: LostTransaction, existing: TransactionRow): GatewayError {
  const held = `${existing.apiOperation} ${existing.type} ${Money.of(existing.amount, existing.currency).toFixed()} ${existing.currency} ${existing.result} (${existing.gatewayCode})`;
  const hint = existing.result === 'UNKNOWN' || existing.result === 'PENDING' ? ' Its outcome is recorded with `transactions resolve`.' : '';
  return GatewayError.invalidRequest(
    `Transaction '${lost.transactionId}' on order '${lost.orderId}' of merchant '${lost.merchantId}' is already in the ledger as ${held}, which differs from the record: nothing written, the ledger's is kept.${hint}`,
  );
}

/** The order exists in another currency: the record cannot be one of its transactions. */
export function currencyConflict(lost: LostTransaction, order: LockedOrder['order']): GatewayError {
  return GatewayError.invalidField(
    'currency',
    'INVALID',
    `currency ${lost.amount.currency} is not the currency of order '${lost.orderId}' in the ledger (${order.currency}): nothing written.`,
  );
}
