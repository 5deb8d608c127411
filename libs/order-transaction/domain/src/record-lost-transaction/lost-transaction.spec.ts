import { GatewayError, JsonObject } from '@gateway/contracts';
import type { TransactionRow } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { conflict, LostTransaction, lostTransactionResponse, parseLostTransaction, sameRecord } from './lost-transaction';

/**
 * A record of the acquirer's as `transactions record-lost` reads it (record-lost.int-spec.ts runs
 * the command against the ledger): each rule a line is checked by, on its own, with the field and
 * validation type it names and what it tells the operator.
 */
const NOW = new Date('2026-11-26T12:00:00.000Z');
const FULL_CARD = '5123450000000008';

/** An approved payment of 12.50 USD, as the acquirer's report gives it. */
function record(overrides: JsonObject = {}): JsonObject {
  return {
    merchantId: 'M1',
    orderId: 'o-1',
    transactionId: 'p1',
    type: 'PAYMENT',
    amount: '12.50',
    currency: 'USD',
    gatewayCode: 'APPROVED',
    acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9990011126' },
    receipt: '633012345678',
    authorizationCode: '654321',
    time: '2026-11-26T10:15:00Z',
    card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: '0139' },
    ...overrides,
  };
}

function without(field: string): JsonObject {
  const { [field]: _dropped, ...rest } = record();
  return rest;
}

function refusal(value: unknown): GatewayError {
  try {
    parseLostTransaction(value, NOW);
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('parseLostTransaction', () => {
  it('reads a record into the transaction its operation records', () => {
    expect(parseLostTransaction(record(), NOW)).toEqual({
      merchantId: 'M1',
      orderId: 'o-1',
      transactionId: 'p1',
      type: 'PAYMENT',
      apiOperation: 'PAY',
      amount: Money.of('12.50', 'USD'),
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9990011126' },
      receipt: '633012345678',
      authorizationCode: '654321',
      time: new Date('2026-11-26T10:15:00Z'),
      card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: '0139' },
    });
  });

  it('reads a decline without the approval\'s references, and a void of its target', () => {
    const { authorizationCode: _code, ...decline } = record({ gatewayCode: 'DECLINED', acquirer: { id: 'TEST_ACQUIRER' } });
    expect(parseLostTransaction(decline, NOW)).toMatchObject({ result: 'FAILURE', acquirer: { id: 'TEST_ACQUIRER' } });
    expect(parseLostTransaction(record({ type: 'VOID_CAPTURE', targetTransactionId: 'c1' }), NOW)).toMatchObject({ apiOperation: 'VOID', targetTransactionId: 'c1' });
    expect(parseLostTransaction(record({ type: 'CAPTURE' }), NOW)).not.toHaveProperty('targetTransactionId');
  });

  it.each([
    ['AUTHORIZATION', 'AUTHORIZE'],
    ['PAYMENT', 'PAY'],
    ['CAPTURE', 'CAPTURE'],
    ['REFUND', 'REFUND'],
    ['VOID_AUTHORIZATION', 'VOID'],
    ['VOID_CAPTURE', 'VOID'],
    ['VOID_PAYMENT', 'VOID'],
    ['VOID_REFUND', 'VOID'],
  ])('records a %s as the response of a %s, under which the merchant retries it', (type, apiOperation) => {
    const target: JsonObject = type.startsWith('VOID_') ? { targetTransactionId: 't1' } : {};
    expect(parseLostTransaction(record({ type, ...target }), NOW)).toMatchObject({ type, apiOperation });
  });

  it('takes ids of 40 characters, masked numbers of 12 to 19, and a time up to 5 minutes ahead of ours', () => {
    const id = 'i'.repeat(40);
    expect(parseLostTransaction(record({ merchantId: id, orderId: id, transactionId: id }), NOW)).toMatchObject({ merchantId: id, orderId: id, transactionId: id });
    for (const number of ['xxxxxxxx0008', '512345xxxxxxxxx0008']) {
      expect(parseLostTransaction(record({ card: { number } }), NOW).card).toEqual({ number });
    }
    expect(parseLostTransaction(record({ time: '2026-11-26T12:05:00Z' }), NOW).time).toEqual(new Date('2026-11-26T12:05:00Z'));
    expect(parseLostTransaction(record({ time: '2026-11-26T13:04:59+01:00' }), NOW).time).toEqual(new Date('2026-11-26T12:04:59Z'));
  });

  it.each<[string, unknown, string, string, string]>([
    ['a field no record has', record({ mid: 'x' }), 'mid', 'UNSUPPORTED', 'mid is not a field of a record (merchantId, orderId, transactionId, type, targetTransactionId, amount, currency, gatewayCode, acquirer, receipt, authorizationCode, acquirerCode, time, card, excessiveRefund).'],
    ['an id of 41 characters', record({ orderId: 'o'.repeat(41) }), 'orderId', 'INVALID', 'orderId must be 1 to 40 characters without control characters.'],
    ['a target id of 41 characters', record({ type: 'VOID_PAYMENT', targetTransactionId: 't'.repeat(41) }), 'targetTransactionId', 'INVALID', 'targetTransactionId must be 1 to 40 characters without control characters.'],
    ['an id with a control character', record({ transactionId: 'p\u00071' }), 'transactionId', 'INVALID', 'transactionId must be 1 to 40 characters without control characters.'],
    ['no type', without('type'), 'type', 'MISSING', 'type is required.'],
    ['a target on an authorization', record({ type: 'AUTHORIZATION', targetTransactionId: 'x' }), 'targetTransactionId', 'UNSUPPORTED', 'targetTransactionId is not a field of an AUTHORIZATION: it acts on no earlier transaction.'],
    ['no currency', without('currency'), 'currency', 'MISSING', 'currency is required.'],
    ['no amount', without('amount'), 'amount', 'MISSING', 'amount is required.'],
    ['a currency in small letters', record({ currency: 'usd' }), 'currency', 'INVALID', 'currency must be an ISO 4217 currency code (3 capital letters).'],
    ['an amount of zero', record({ amount: '0.00' }), 'amount', 'INVALID', 'amount must be greater than zero.'],
    ['a negative amount', record({ amount: '-12.50' }), 'amount', 'INVALID', 'amount must be greater than zero.'],
    ['no gatewayCode', without('gatewayCode'), 'gatewayCode', 'MISSING', 'gatewayCode is required.'],
    ['an outcome that is no decision', record({ gatewayCode: 'PENDING' }), 'gatewayCode', 'INVALID', 'gatewayCode must be one of APPROVED, DECLINED.'],
    ['no acquirer', without('acquirer'), 'acquirer', 'MISSING', 'acquirer is required.'],
    ['an acquirer that is no object', record({ acquirer: 'TEST_ACQUIRER' }), 'acquirer', 'INVALID', 'acquirer must be an object (id, transactionId, date, time).'],
    ['a field the acquirer group has not', record({ acquirer: { id: 'A', transactionId: 'T', mid: 'x' } }), 'acquirer.mid', 'UNSUPPORTED', "acquirer.mid is not a field of a record's acquirer (id, transactionId, date, time)."],
    ['no acquirer id', record({ acquirer: { transactionId: 'T' } }), 'acquirer.id', 'MISSING', 'acquirer.id is required.'],
    ['an approval code on a decline', record({ gatewayCode: 'DECLINED' }), 'authorizationCode', 'INVALID', 'authorizationCode is given on approvals only.'],
    ['a receipt beyond printable ASCII', record({ receipt: 'RRN\u00e9' }), 'receipt', 'INVALID', 'receipt must be 1 to 100 printable ASCII characters.'],
    ['a card number in the receipt', record({ receipt: FULL_CARD }), 'receipt', 'INVALID', "receipt holds a card number: the acquirer's records give the card in card.number, masked."],
    ['a card number in the approval code', record({ authorizationCode: `card ${FULL_CARD}` }), 'authorizationCode', 'INVALID', "authorizationCode holds a card number: the acquirer's records give the card in card.number, masked."],
    ["a card number in the acquirer's response code", record({ acquirerCode: FULL_CARD.replace(/(\d{4})(?=\d)/g, '$1 ') }), 'acquirerCode', 'INVALID', "acquirerCode holds a card number: the acquirer's records give the card in card.number, masked."],
    ['no time', without('time'), 'time', 'MISSING', 'time is required.'],
    ['a time without its offset', record({ time: '2026-11-26T10:15:00' }), 'time', 'INVALID', 'time must be an ISO 8601 date and time with its offset (2026-11-26T10:15:00Z).'],
    ['a time that is no date', record({ time: '2026-13-40T10:15:00Z' }), 'time', 'INVALID', 'time is not a valid date and time.'],
    ['a time further ahead than the clocks can differ', record({ time: '2026-11-26T12:05:00.001Z' }), 'time', 'INVALID', 'time is in the future.'],
    ['a card that is no object', record({ card: '512345xxxxxx0008' }), 'card', 'INVALID', 'card must be an object (number, brand, expiry).'],
    ['a masked number shorter than a card number', record({ card: { number: 'xxx0008' } }), 'card.number', 'INVALID', 'card.number must be masked as the acquirer shows it (512345xxxxxx0008): a full card number is never recorded.'],
    ['a masked number longer than a card number', record({ card: { number: '512345xxxxxxxxxx0008' } }), 'card.number', 'INVALID', 'card.number must be masked as the acquirer shows it (512345xxxxxx0008): a full card number is never recorded.'],
    ['a brand not in capitals', record({ card: { brand: 'Mastercard' } }), 'card.brand', 'INVALID', 'card.brand must be the brand in capitals (MASTERCARD, VISA, ...).'],
    ['an expiry month 13', record({ card: { expiry: '1339' } }), 'card.expiry', 'INVALID', 'card.expiry must be MMYY.'],
    ['a security code', record({ card: { securityCode: '100' } }), 'card.securityCode', 'UNSUPPORTED', 'card.securityCode is not kept for a recorded transaction (number masked, brand, expiry).'],
  ])('refuses %s, naming the field', (_, value, field, validationType, explanation) => {
    expect(refusal(value)).toMatchObject({ code: 'INVALID_FIELD', field, validationType, explanation });
  });

  it('reads the Excessive Refund privilege on a REFUND when the line states it, and false as not stated', () => {
    const line = record({ type: 'REFUND' });
    expect(parseLostTransaction({ ...line, excessiveRefund: true }, NOW)).toMatchObject({ type: 'REFUND', excessiveRefund: true });
    expect(parseLostTransaction({ ...line, excessiveRefund: false }, NOW)).not.toHaveProperty('excessiveRefund');
    expect(parseLostTransaction(line, NOW)).not.toHaveProperty('excessiveRefund');
    // false is "not stated" on every type, as the field's absence is.
    expect(parseLostTransaction(record({ excessiveRefund: false }), NOW)).not.toHaveProperty('excessiveRefund');
  });

  it.each<[string, JsonObject, string, string]>([
    ['null', { type: 'REFUND', excessiveRefund: null }, 'INVALID', 'excessiveRefund must be true or false (JSON booleans).'],
    ['a string', { type: 'REFUND', excessiveRefund: 'true' }, 'INVALID', 'excessiveRefund must be true or false (JSON booleans).'],
    ['true on a CAPTURE', { type: 'CAPTURE', excessiveRefund: true }, 'UNSUPPORTED', 'excessiveRefund is a field of a REFUND only, not of a CAPTURE.'],
    ['true on an AUTHORIZATION', { type: 'AUTHORIZATION', excessiveRefund: true }, 'UNSUPPORTED', 'excessiveRefund is a field of a REFUND only, not of an AUTHORIZATION.'],
  ])('refuses excessiveRefund %s, naming the field', (_, overrides, validationType, explanation) => {
    expect(refusal(record(overrides))).toMatchObject({ code: 'INVALID_FIELD', field: 'excessiveRefund', validationType, explanation });
  });

  it('refuses what is no JSON object, and never repeats a full card number', () => {
    expect(refusal([record()])).toMatchObject({ code: 'INVALID_REQUEST', explanation: 'A record is a JSON object.' });
    expect(JSON.stringify(refusal(record({ card: { number: FULL_CARD } })))).not.toContain(FULL_CARD);
  });
});

describe('lostTransactionResponse', () => {
  it('shows the card as the records mask it, the expiry as month and year, and the acquirer\'s references where a live answer has them', () => {
    expect(lostTransactionResponse(parseLostTransaction(record({ acquirerCode: '00' }), NOW))).toEqual({
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: { month: '1', year: '39' } } } },
      response: { acquirerCode: '00' },
      transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9990011126' }, authorizationCode: '654321', receipt: '633012345678' },
      timeOfRecord: '2026-11-26T10:15:00.000Z',
    });
  });
});

describe('sameRecord', () => {
  const lost: LostTransaction = parseLostTransaction(record({ type: 'CAPTURE', targetTransactionId: 'a1' }), NOW);
  const row: TransactionRow = {
    transactionId: 'p1',
    sequence: 2,
    apiOperation: 'CAPTURE',
    type: 'CAPTURE',
    amount: '12.5000',
    currency: 'USD',
    result: 'SUCCESS',
    gatewayCode: 'APPROVED',
    targetTransactionId: 'a1',
    fundingType: 'CARD',
    taxAmount: null,
    createdAt: NOW,
    updatedAt: NOW,
  };
  const body: JsonObject = { transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9990011126' } } };

  it('is the transaction the record made: the command run again', () => {
    expect(sameRecord(row, body, lost)).toBe(true);
    // Without a target named, the one the ledger identified when it was recorded.
    const { targetTransactionId: _target, ...unnamed } = lost;
    expect(sameRecord({ ...row, targetTransactionId: 'a7' }, body, unnamed)).toBe(true);
  });

  it.each<[string, Partial<TransactionRow>, JsonObject?]>([
    ['another operation', { apiOperation: 'PAY' }],
    ['another type', { type: 'PAYMENT' }],
    ['funded by a browser payment provider', { fundingType: 'PROVIDER_A' }],
    ['another result', { result: 'UNKNOWN' }],
    ['another gateway code', { gatewayCode: 'DECLINED' }],
    ['another amount', { amount: '12.5100' }],
    ['another target', { targetTransactionId: 'a2' }],
    ['another acquirer reference', {}, { transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC0' } } }],
  ])('is not a transaction with %s', (_, changed, stored = body) => {
    expect(sameRecord({ ...row, ...changed }, stored, lost)).toBe(false);
  });

  it('names what the ledger holds in a conflict, and how to settle an outcome it does not know', () => {
    expect(conflict(lost, { ...row, result: 'FAILURE', gatewayCode: 'DECLINED' }).explanation).toBe(
      "Transaction 'p1' on order 'o-1' of merchant 'M1' is already in the ledger as CAPTURE CAPTURE 12.50 USD FAILURE (DECLINED), which differs from the record: nothing written, the ledger's is kept.",
    );
    for (const result of ['UNKNOWN', 'PENDING'] as const) {
      expect(conflict(lost, { ...row, result }).explanation).toMatch(/ Its outcome is recorded with `transactions resolve`\.$/);
    }
  });
});
