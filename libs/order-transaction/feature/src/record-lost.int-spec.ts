import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  defaultMerchantSettings,
  JsonObject,
  MerchantContext,
  notificationSecretContext,
  OperationReply,
  SUBJECTS,
} from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import { createLogger } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testRequestHasher } from '@gateway/testing';
import { recordLostOver, resolveUnknownOver } from './operator-commands';
import { LedgerTestApp, newOrderId, nextFence, operateAs, rejection, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';
import { runTransactionsCommand, TransactionsLedger } from './transactions.command';

/**
 * `transactions record-lost` (RecordLostTransaction) against the real ledger: transactions the
 * acquirer processed in a window lost by a restore, recorded from its records by the operator's
 * command as the command's main wires it, then the merchant's retries and later operations over
 * order-transaction's own operation path (PAY, AUTHORIZE, CAPTURE, REFUND), its test acquirer
 * counted in `gateway_acquirer_requests_total`.
 */
let app: LedgerTestApp;
let dir: string;

beforeAll(async () => {
  app = await startLedgerTestApp();
  dir = await mkdtemp(join(tmpdir(), 'record-lost-'));
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
  await rm(dir, { recursive: true, force: true });
});

const HOOKS = 'https://merchant.example/hooks';
const RING = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');

type Run = { code: number; out: string; err: string };

const logger = createLogger({ service: 'order-transaction', level: 'silent' });

/** The command as its main wires it; `lost`: the record path seen through what a test does around it. */
async function command(args: string[], lost: TransactionsLedger['lost'] = recordLostOver(app.dataSource, logger)): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const ledger = {
    unresolved: UnresolvedTransactions.over(app.dataSource),
    resolution: resolveUnknownOver(app.dataSource, logger),
    lost,
  };
  const code = await runTransactionsCommand(args, ledger, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** `record-lost` over a file holding these lines. */
async function recordLost(lines: (JsonObject | string)[], ...options: string[]): Promise<Run> {
  return command(['record-lost', '--file', await fileOf(lines), ...options]);
}

async function fileOf(lines: (JsonObject | string)[]): Promise<string> {
  const file = join(dir, `${randomBytes(4).toString('hex')}.jsonl`);
  await writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

const TIME = '2026-11-26T10:15:00.000Z';

/** A record as the acquirer's report gives it: an approved payment of `amount` USD. */
function lostRecord(merchant: MerchantContext, orderId: string, overrides: JsonObject = {}): JsonObject {
  return {
    merchantId: merchant.id,
    orderId,
    transactionId: 'p1',
    type: 'PAYMENT',
    amount: '12.50',
    currency: 'USD',
    gatewayCode: 'APPROVED',
    acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9990011126' },
    receipt: '633012345678',
    authorizationCode: '654321',
    time: TIME,
    card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: '0139' },
    ...overrides,
  };
}

/** The merchant's request as it sent it before the fault: the card given in full. */
const payRequest = (amount: string): JsonObject => ({
  order: { amount, currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } },
});

async function acquirerCalls(operation: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.operation === operation).reduce((sum, v) => sum + v.value, 0);
}

async function ledgerState(merchant: MerchantContext, orderId: string) {
  const orders = await app.dataSource.query(
    `SELECT status, amount::text, total_authorized_amount::text AS authorized, total_captured_amount::text AS captured,
            total_refunded_amount::text AS refunded, operation_count AS "operationCount", updated_at AS "updatedAt"
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  const transactions = await app.dataSource.query(
    `SELECT t.transaction_id AS id, t.type, t.amount::text, t.result, t.gateway_code AS "gatewayCode", r.body
       FROM order_transaction.transactions t
       JOIN order_transaction.operation_responses r USING (merchant_id, order_id, transaction_id)
      WHERE t.merchant_id = $1 AND t.order_id = $2 ORDER BY r.sequence`,
    [merchant.id, orderId],
  );
  const outbox = await app.dataSource.query('SELECT transaction_id AS id, payload FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2 ORDER BY created_at', [
    merchant.id,
    orderId,
  ]);
  return { order: orders[0] ?? null, transactions, outbox };
}

/** What the ledger keeps of an order besides its totals: its fencing token, notification URL and details. */
async function orderFields(merchant: MerchantContext, orderId: string): Promise<{ fence: string; notificationUrl: string | null; details: JsonObject } | undefined> {
  const [row] = await app.dataSource.query(
    `SELECT last_fencing_token::text AS fence, notification_url AS "notificationUrl", details FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return row;
}

async function retrieveTransaction(merchant: MerchantContext, orderId: string, transactionId: string): Promise<JsonObject> {
  const envelope = { merchant, apiVersion: 100, requestId: `get-${transactionId}`, authMethod: 'PASSWORD' as const };
  const reply: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveTransaction, { envelope, orderId, transactionId });
  return reply.body;
}

describe('a PAYMENT lost in a restore, recorded from the acquirer\'s records', () => {
  it('answers the merchant\'s retry of the PUT from the record without calling the acquirer, and refunds it within its amount', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const recorded = await recordLost([lostRecord(merchant, orderId)], '--json');
    expect(recorded.err).toBe('');
    expect(recorded.code).toBe(0);
    expect(JSON.parse(recorded.out)).toEqual([
      {
        status: 'RECORDED',
        merchantId: merchant.id,
        orderId,
        transactionId: 'p1',
        type: 'PAYMENT',
        amount: '12.50',
        currency: 'USD',
        result: 'SUCCESS',
        gatewayCode: 'APPROVED',
        order: { status: 'CAPTURED', totalAuthorizedAmount: '12.50', totalCapturedAmount: '12.50', totalRefundedAmount: '0.00' },
        notified: false,
      },
    ]);

    // Opened with fencing token 0, below every token the edge's lock hands out; the merchant's details and URL were lost with its request.
    expect(await orderFields(merchant, orderId)).toEqual({ fence: '0', notificationUrl: null, details: {} });
    const retrieved = await retrieveTransaction(merchant, orderId, 'p1');
    expect(retrieved).toEqual({
      order: {
        id: orderId,
        amount: 12.5,
        currency: 'USD',
        status: 'CAPTURED',
        totalAuthorizedAmount: 12.5,
        totalCapturedAmount: 12.5,
        totalRefundedAmount: 0,
        creationTime: TIME,
        lastUpdatedTime: TIME,
      },
      response: { gatewayCode: 'APPROVED' },
      result: 'SUCCESS',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: { month: '1', year: '39' } } } },
      timeOfRecord: TIME,
      transaction: {
        id: 'p1',
        type: 'PAYMENT',
        amount: 12.5,
        currency: 'USD',
        acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9990011126' },
        authorizationCode: '654321',
        receipt: '633012345678',
      },
    });

    // The merchant retries its PUT with the same ids and amount: the recorded payment, no second charge.
    const payments = await acquirerCalls('PAY');
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('12.50'))).toEqual(retrieved);
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('12.5'))).toEqual(retrieved);
    expect(await acquirerCalls('PAY')).toBe(payments);
    // Another amount under the same ids is another request: refused, as any replay with other values.
    const other = await rejection(operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('20.00')));
    expect(other.explanation).toMatch(/already processed with different values/);
    expect(await acquirerCalls('PAY')).toBe(payments);

    // A refund of it goes to the acquirer by the recorded reference, bounded by its amount.
    const refunds = await acquirerCalls('REFUND');
    expect(await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '5.00', currency: 'USD' } })).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 12.5, totalRefundedAmount: 5 },
    });
    const over = await rejection(operateAs(app, merchant, orderId, 'r2', 'REFUND', { transaction: { amount: '7.51', currency: 'USD' } }));
    expect(over).toMatchObject({ code: 'INVALID_FIELD', field: 'transaction.amount', explanation: expect.stringContaining('available for refund on this order is 7.50 USD') });
    expect(await operateAs(app, merchant, orderId, 'r3', 'REFUND', { transaction: { amount: '7.50', currency: 'USD' } })).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'REFUNDED', totalRefundedAmount: 12.5 },
    });
    expect(await acquirerCalls('REFUND')).toBe(refunds + 2);
    expect(JSON.stringify(await ledgerState(merchant, orderId))).not.toContain(TEST_CARD);
  });

  it('recorded twice is recorded once: the second run writes nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    // Blank lines, whitespace only included, are no records.
    expect(await recordLost(['', lostRecord(merchant, orderId), ' \t '])).toMatchObject({ code: 0, err: '' });
    const after = await ledgerState(merchant, orderId);

    const again = await recordLost([lostRecord(merchant, orderId)]);
    expect(again).toMatchObject({ code: 0, err: '' });
    expect(again.out.split('\t').slice(0, 3)).toEqual(['Already recorded, nothing written:', `${merchant.id}/${orderId}/p1`, 'PAYMENT']);
    expect(await ledgerState(merchant, orderId)).toEqual(after);
  });

  it('a record that differs from what the ledger holds is refused, the ledger\'s kept', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await recordLost([lostRecord(merchant, orderId)]);
    // A transaction the merchant's own request recorded (the restore point kept it).
    const kept = newOrderId();
    await operateAs(app, merchant, kept, 'p1', 'PAY', payRequest('30.00'));
    const before = [await ledgerState(merchant, orderId), await ledgerState(merchant, kept)];

    const refused = await recordLost([
      lostRecord(merchant, orderId, { amount: '13.00' }),
      lostRecord(merchant, kept, { amount: '30.00', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'OTHER-REF' } }),
      lostRecord(merchant, orderId, { transactionId: 'p2', currency: 'EUR', amount: '1.00' }),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('(no records)');
    expect(refused.err.split('\n')).toEqual([
      `error: line 1 (${merchant.id}/${orderId}/p1): refused, nothing written: Transaction 'p1' on order '${orderId}' of merchant '${merchant.id}' is already in the ledger as PAY PAYMENT 12.50 USD SUCCESS (APPROVED), which differs from the record: nothing written, the ledger's is kept.`,
      expect.stringContaining(`error: line 2 (${merchant.id}/${kept}/p1): refused, nothing written: Transaction 'p1'`),
      `error: line 3 (${merchant.id}/${orderId}/p2): refused, nothing written: field 'currency': currency EUR is not the currency of order '${orderId}' in the ledger (USD): nothing written.`,
      'error: 3 refused lines: nothing of the file was written',
    ]);
    expect([await ledgerState(merchant, orderId), await ledgerState(merchant, kept)]).toEqual(before);
  });
});

describe('an AUTHORIZATION lost in a restore', () => {
  it('answers the retried AUTHORIZE from the record, and a CAPTURE of it goes through the acquirer by its reference', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const recorded = await recordLost([lostRecord(merchant, orderId, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00', card: { number: 'xxxxxxxxxxxx0008' } })]);
    expect(recorded.out.split('\t')).toEqual(['Recorded:', `${merchant.id}/${orderId}/a1`, 'AUTHORIZATION', '40.00 USD', 'SUCCESS', 'APPROVED', 'order AUTHORIZED', 'no notification']);

    const authorizations = await acquirerCalls('AUTHORIZE');
    const retried = await operateAs(app, merchant, orderId, 'a1', 'AUTHORIZE', payRequest('40.00'));
    expect(retried).toEqual(await retrieveTransaction(merchant, orderId, 'a1'));
    expect(retried).toMatchObject({ result: 'SUCCESS', order: { status: 'AUTHORIZED', totalAuthorizedAmount: 40 }, sourceOfFunds: { provided: { card: { number: 'xxxxxxxxxxxx0008' } } } });
    expect(await acquirerCalls('AUTHORIZE')).toBe(authorizations);

    const captures = await acquirerCalls('CAPTURE');
    expect(await operateAs(app, merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '40.00', currency: 'USD' } })).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'CAPTURED', totalCapturedAmount: 40 },
    });
    expect(await acquirerCalls('CAPTURE')).toBe(captures + 1);
  });

  it('on an order the ledger kept, with notifications: appended under the ledger\'s rules and announced as the order was', async () => {
    const secret = RING.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext('x'));
    const merchant = testMerchant();
    const notified = { ...merchant, settings: { ...defaultMerchantSettings(), notifications: { enabled: true, secret: { current: secret } } } };
    const orderId = newOrderId();
    // The VERIFY before the restore point, which named the order's notification URL.
    await operateAs(app, notified, orderId, 'v1', 'VERIFY', { order: { currency: 'USD', notificationUrl: HOOKS }, sourceOfFunds: payRequest('1').sourceOfFunds as JsonObject });
    const recorded = await recordLost([lostRecord(notified, orderId, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' })], '--json');
    expect(JSON.parse(recorded.out)).toEqual([expect.objectContaining({ status: 'RECORDED', order: expect.objectContaining({ status: 'AUTHORIZED' }), notified: true })]);
    const { outbox } = await ledgerState(notified, orderId);
    expect(outbox.map((row: { id: string }) => row.id)).toEqual(['v1', 'a1']);
    expect(outbox[1].payload).toEqual({ ...(await retrieveTransaction(notified, orderId, 'a1')), merchant: notified.id });
  });
});

describe('a dry run', () => {
  it('prints what would be recorded and writes nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const dry = await recordLost([lostRecord(merchant, orderId)], '--dry-run');
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out.split('\t')).toEqual(['Would record (dry run):', `${merchant.id}/${orderId}/p1`, 'PAYMENT', '12.50 USD', 'SUCCESS', 'APPROVED', 'order CAPTURED', 'no notification']);
    expect(await ledgerState(merchant, orderId)).toEqual({ order: null, transactions: [], outbox: [] });
  });
});

describe('bad input', () => {
  it.each([
    ['an unknown currency', { currency: 'XYZ' }, "field 'currency': currency 'XYZ' is not an ISO 4217 currency code."],
    ['an amount with more decimals than the currency has', { amount: '12.505' }, "field 'amount': amount '12.505' is invalid: USD amounts have at most 2 decimal places."],
    ['an amount in JPY with decimals', { amount: '12.5', currency: 'JPY' }, "field 'amount': amount '12.5' is invalid: JPY amounts are whole numbers: JPY has no minor unit."],
    ['an amount as a JSON number', { amount: 12.5 }, "field 'amount': amount must be a decimal string (\"12.50\"), not a JSON number."],
    ['an amount beyond the largest', { amount: '1000000000000.01' }, "field 'amount': amount '1000000000000.01' is invalid: Amounts are at most 1000000000000."],
    [
      'an unknown operation',
      { type: 'REFUND_REQUEST' },
      "field 'type': type must be one of AUTHORIZATION, PAYMENT, CAPTURE, REFUND, VOID_AUTHORIZATION, VOID_CAPTURE, VOID_PAYMENT, VOID_REFUND.",
    ],
    ['a void without its target', { type: 'VOID_PAYMENT' }, "field 'targetTransactionId': targetTransactionId is required on a void: the transaction it voided."],
    ['a target on a payment', { targetTransactionId: 'a1' }, "field 'targetTransactionId': targetTransactionId is not a field of a PAYMENT: it acts on no earlier transaction."],
    ['a full card number', { card: { number: TEST_CARD } }, "field 'card.number': card.number must be masked as the acquirer shows it (512345xxxxxx0008): a full card number is never recorded."],
    ['a card number in the receipt', { receipt: TEST_CARD }, "field 'receipt': receipt holds a card number: the acquirer's records give the card in card.number, masked."],
    ['a card number in the approval code', { authorizationCode: `card ${TEST_CARD}` }, "field 'authorizationCode': authorizationCode holds a card number: the acquirer's records give the card in card.number, masked."],
    ['a card number in the acquirer\'s response code', { acquirerCode: TEST_CARD }, "field 'acquirerCode': acquirerCode holds a card number: the acquirer's records give the card in card.number, masked."],
    ['an approval without the acquirer\'s reference', { acquirer: { id: 'TEST_ACQUIRER' } }, "field 'acquirer.transactionId': acquirer.transactionId is required on approvals: later operations are sent by it."],
  ])('%s is refused with the field named, and no line of the file is written', async (_, overrides, message) => {
    const merchant = testMerchant();
    const good = newOrderId();
    const orderId = newOrderId();
    const run = await recordLost([lostRecord(merchant, good), lostRecord(merchant, orderId, overrides as JsonObject)]);
    expect(run).toEqual({ code: 2, out: '', err: `error: line 2: ${message}\nerror: 1 bad line: nothing written` });
    expect(run.err).not.toContain(TEST_CARD);
    expect((await ledgerState(merchant, good)).order).toBeNull();
    expect((await ledgerState(merchant, orderId)).order).toBeNull();
  });

  it('a line that is not JSON, and no --file, are refused', async () => {
    expect(await recordLost(['{"merchantId":'])).toMatchObject({ code: 2, err: expect.stringMatching(/^error: line 1: not JSON: /) });
    expect(await command(['record-lost'])).toEqual({ code: 2, out: '', err: 'error: record-lost needs --file <path> (one JSON record a line)' });
  });
});

/** A record of an operation on an earlier transaction: approved, with the acquirer's own reference of it. */
function followOn(merchant: MerchantContext, orderId: string, transactionId: string, type: string, amount: string, overrides: JsonObject = {}): JsonObject {
  const { card: _card, authorizationCode: _code, ...record } = lostRecord(merchant, orderId, {
    transactionId,
    type,
    amount,
    acquirer: { id: 'TEST_ACQUIRER', transactionId: `REF-${transactionId}` },
    receipt: `RRN-${transactionId}`,
  });
  return { ...record, ...overrides };
}

/** A CAPTURE's or REFUND's body asking for `amount` USD. */
const amountOf = (amount: string): JsonObject => ({ transaction: { amount, currency: 'USD' } });

/** A decline carries no approval code. */
function declined({ authorizationCode: _code, ...record }: JsonObject): JsonObject {
  return record;
}

describe('a CAPTURE lost in a restore', () => {
  it('of a real authorization: the merchant\'s retried CAPTURE is answered from it without the acquirer, and refunds are bounded by it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'a1', 'AUTHORIZE', payRequest('40.00'));
    const kept = await orderFields(merchant, orderId);
    const recorded = await recordLost([followOn(merchant, orderId, 'c1', 'CAPTURE', '30.00', { targetTransactionId: 'a1' })]);
    expect(recorded).toMatchObject({ code: 0, err: '' });
    expect(recorded.out.split('\t')).toEqual(['Recorded:', `${merchant.id}/${orderId}/c1`, 'CAPTURE', '30.00 USD', 'SUCCESS', 'APPROVED', 'order PARTIALLY_CAPTURED', 'no notification']);
    const stored = await retrieveTransaction(merchant, orderId, 'c1');
    // The order's own fields and fencing token stay the ledger's: a stale operation is still fenced off.
    expect(await orderFields(merchant, orderId)).toEqual(kept);
    expect(kept!.fence).not.toBe('0');
    expect(stored).toMatchObject({
      result: 'SUCCESS',
      // A capture leaves the order's amount, the authorization's.
      order: { amount: 40, status: 'PARTIALLY_CAPTURED', totalAuthorizedAmount: 40, totalCapturedAmount: 30 },
      // The authorization's card, as a live capture shows it.
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } },
      transaction: { type: 'CAPTURE', amount: 30, targetTransactionId: 'a1', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'REF-c1' } },
    });

    const captures = await acquirerCalls('CAPTURE');
    expect(await operateAs(app, merchant, orderId, 'c1', 'CAPTURE', amountOf('30.00'))).toEqual(stored);
    expect(await operateAs(app, merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '30', currency: 'USD', targetTransactionId: 'a1' } })).toEqual(stored);
    for (const other of [amountOf('31.00'), { transaction: { amount: '30.00', currency: 'USD', targetTransactionId: 'a2' } }]) {
      expect((await rejection(operateAs(app, merchant, orderId, 'c1', 'CAPTURE', other))).explanation).toMatch(/already processed with different values/);
    }
    expect(await acquirerCalls('CAPTURE')).toBe(captures);

    const refunds = await acquirerCalls('REFUND');
    expect(await operateAs(app, merchant, orderId, 'r1', 'REFUND', amountOf('20.00'))).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 30, totalRefundedAmount: 20 },
      transaction: { targetTransactionId: 'c1' },
    });
    const over = await rejection(operateAs(app, merchant, orderId, 'r2', 'REFUND', amountOf('10.01')));
    expect(over).toMatchObject({ field: 'transaction.amount', explanation: expect.stringContaining('available for refund on this order is 10.00 USD') });
    expect(await acquirerCalls('REFUND')).toBe(refunds + 1);
  });

  it('of an authorization recorded by an earlier line, then its REFUND: each line decided on what the lines before leave, in a dry run too; twice is once', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const file = [
      lostRecord(merchant, orderId, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' }),
      // No target named: the ledger finds the single authorization left to capture, as CAPTURE does.
      followOn(merchant, orderId, 'c1', 'CAPTURE', '40.00'),
      followOn(merchant, orderId, 'r1', 'REFUND', '15.00'),
    ];
    const dry = await recordLost(file, '--dry-run');
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out.split('\n').map((line) => line.split('\t').filter((_, i) => [0, 2, 6].includes(i)))).toEqual([
      ['Would record (dry run):', 'AUTHORIZATION', 'order AUTHORIZED'],
      ['Would record (dry run):', 'CAPTURE', 'order CAPTURED'],
      ['Would record (dry run):', 'REFUND', 'order PARTIALLY_REFUNDED'],
    ]);
    expect((await ledgerState(merchant, orderId)).order).toBeNull();

    const recorded = await recordLost(file, '--json');
    expect(recorded).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(recorded.out).map((r: JsonObject) => [r.status, r.type, r.order])).toEqual([
      ['RECORDED', 'AUTHORIZATION', { status: 'AUTHORIZED', totalAuthorizedAmount: '40.00', totalCapturedAmount: '0.00', totalRefundedAmount: '0.00' }],
      ['RECORDED', 'CAPTURE', { status: 'CAPTURED', totalAuthorizedAmount: '40.00', totalCapturedAmount: '40.00', totalRefundedAmount: '0.00' }],
      ['RECORDED', 'REFUND', { status: 'PARTIALLY_REFUNDED', totalAuthorizedAmount: '40.00', totalCapturedAmount: '40.00', totalRefundedAmount: '15.00' }],
    ]);
    const after = await ledgerState(merchant, orderId);
    expect(after.transactions.map((t: JsonObject) => [t.id, t.type, t.amount, (t.body as { transaction: JsonObject }).transaction.targetTransactionId])).toEqual([
      ['a1', 'AUTHORIZATION', '40.0000', undefined],
      ['c1', 'CAPTURE', '40.0000', 'a1'],
      ['r1', 'REFUND', '15.0000', 'c1'],
    ]);

    const again = await recordLost(file);
    expect(again).toMatchObject({ code: 0, err: '' });
    expect(again.out.split('\n').map((line) => line.split('\t')[0])).toEqual(Array(3).fill('Already recorded, nothing written:'));
    expect(await ledgerState(merchant, orderId)).toEqual(after);

    // The merchant's retried REFUND is the recorded one; what is left to refund is 25.00.
    const refunds = await acquirerCalls('REFUND');
    expect(await operateAs(app, merchant, orderId, 'r1', 'REFUND', amountOf('15.00'))).toEqual(await retrieveTransaction(merchant, orderId, 'r1'));
    const over = await rejection(operateAs(app, merchant, orderId, 'r2', 'REFUND', amountOf('25.01')));
    expect(over.explanation).toContain('available for refund on this order is 25.00 USD');
    expect(await acquirerCalls('REFUND')).toBe(refunds);
    expect(await operateAs(app, merchant, orderId, 'r2', 'REFUND', amountOf('25.00'))).toMatchObject({ result: 'SUCCESS', order: { status: 'REFUNDED' } });
    expect(await acquirerCalls('REFUND')).toBe(refunds + 1);
  });
});

describe('a REFUND lost in a restore', () => {
  it('of a real payment reduces what is left to refund, and its retry is answered from it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('50.00'));
    const recorded = await recordLost([followOn(merchant, orderId, 'r1', 'REFUND', '20.00', { targetTransactionId: 'p1' })]);
    expect(recorded.out.split('\t').slice(2, 7)).toEqual(['REFUND', '20.00 USD', 'SUCCESS', 'APPROVED', 'order PARTIALLY_REFUNDED']);

    const refunds = await acquirerCalls('REFUND');
    expect(await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '20.00', currency: 'USD', targetTransactionId: 'p1' } })).toEqual(
      await retrieveTransaction(merchant, orderId, 'r1'),
    );
    expect((await rejection(operateAs(app, merchant, orderId, 'r3', 'REFUND', amountOf('30.01')))).explanation).toContain('available for refund on this order is 30.00 USD');
    expect(await acquirerCalls('REFUND')).toBe(refunds);
  });

  it('on an order the ledger does not hold is a standalone refund: it opens the order, and its retry with the card is answered from it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const recorded = await recordLost([followOn(merchant, orderId, 'r1', 'REFUND', '9.99', { card: { number: '512345xxxxxx0008' } })]);
    expect(recorded.out.split('\t').slice(2, 7)).toEqual(['REFUND', '9.99 USD', 'SUCCESS', 'APPROVED', 'order REFUNDED']);
    const refunds = await acquirerCalls('REFUND');
    const retried = await operateAs(app, merchant, orderId, 'r1', 'REFUND', { ...amountOf('9.99'), sourceOfFunds: payRequest('1').sourceOfFunds as JsonObject });
    expect(retried).toEqual(await retrieveTransaction(merchant, orderId, 'r1'));
    expect(retried).toMatchObject({ order: { status: 'REFUNDED', totalRefundedAmount: 9.99 }, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
    expect(await acquirerCalls('REFUND')).toBe(refunds);
  });
});

describe('a VOID lost in a restore', () => {
  it('of an authorization leaves nothing to capture, and the merchant\'s retried VOID is answered from it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const recorded = await recordLost([
      lostRecord(merchant, orderId, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' }),
      followOn(merchant, orderId, 'v1', 'VOID_AUTHORIZATION', '40.00', { targetTransactionId: 'a1' }),
    ]);
    expect(recorded).toMatchObject({ code: 0, err: '' });
    expect(recorded.out.split('\n')[1].split('\t').slice(2, 7)).toEqual(['VOID_AUTHORIZATION', '40.00 USD', 'SUCCESS', 'APPROVED', 'order CANCELLED']);

    const voids = await acquirerCalls('VOID');
    const stored = await retrieveTransaction(merchant, orderId, 'v1');
    expect(stored).toMatchObject({ order: { status: 'CANCELLED', totalAuthorizedAmount: 0 }, transaction: { type: 'VOID_AUTHORIZATION', targetTransactionId: 'a1' } });
    expect(await operateAs(app, merchant, orderId, 'v1', 'VOID', { transaction: { targetTransactionId: 'a1' } })).toEqual(stored);
    expect((await rejection(operateAs(app, merchant, orderId, 'v1', 'VOID', { transaction: { targetTransactionId: 'a2' } }))).explanation).toMatch(
      /already processed with different values/,
    );
    expect(await acquirerCalls('VOID')).toBe(voids);

    const captures = await acquirerCalls('CAPTURE');
    const capture = await rejection(operateAs(app, merchant, orderId, 'c1', 'CAPTURE', amountOf('1.00')));
    expect(capture.explanation).toContain('available for capture on this order is 0.00 USD');
    expect(await acquirerCalls('CAPTURE')).toBe(captures);
  });

  it('of a refund gives back what it took from the refundable amount', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('50.00'));
    const recorded = await recordLost([
      followOn(merchant, orderId, 'r1', 'REFUND', '50.00'),
      followOn(merchant, orderId, 'v1', 'VOID_REFUND', '50.00', { targetTransactionId: 'r1' }),
    ]);
    expect(recorded.out.split('\n').map((line) => line.split('\t')[6])).toEqual(['order REFUNDED', 'order CAPTURED']);
    // The merchant's retried VOID of the refund is the recorded one.
    const voids = await acquirerCalls('VOID');
    expect(await operateAs(app, merchant, orderId, 'v1', 'VOID', { transaction: { targetTransactionId: 'r1' } })).toEqual(await retrieveTransaction(merchant, orderId, 'v1'));
    expect(await acquirerCalls('VOID')).toBe(voids);
    expect(await operateAs(app, merchant, orderId, 'r2', 'REFUND', amountOf('50.00'))).toMatchObject({ result: 'SUCCESS', order: { status: 'REFUNDED' } });
  });
});

describe('a record that breaks its operation\'s rules', () => {
  it.each([
    [
      'a capture above the authorized amount',
      (m: MerchantContext, o: string) => [
        lostRecord(m, o, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' }),
        followOn(m, o, 'c1', 'CAPTURE', '40.01', { targetTransactionId: 'a1' }),
      ],
      "field 'amount': Value '40.01' is invalid. The amount available for capture on this order is 40.00 USD.",
    ],
    [
      'a void of a failed transaction',
      (m: MerchantContext, o: string) => [
        declined(lostRecord(m, o, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00', gatewayCode: 'DECLINED' })),
        followOn(m, o, 'v1', 'VOID_AUTHORIZATION', '40.00', { targetTransactionId: 'a1' }),
      ],
      "field 'targetTransactionId': Value 'a1' is invalid. Transaction 'a1' is a FAILURE AUTHORIZATION: only a successful AUTHORIZATION, CAPTURE, PAYMENT or REFUND can be voided.",
    ],
    [
      'a refund beyond what was captured',
      (m: MerchantContext, o: string) => [lostRecord(m, o), followOn(m, o, 'r1', 'REFUND', '12.51')],
      "field 'amount': Value '12.51' is invalid. The amount available for refund on this order is 12.50 USD.",
    ],
    [
      'a void of another type than its target\'s',
      (m: MerchantContext, o: string) => [lostRecord(m, o), followOn(m, o, 'v1', 'VOID_CAPTURE', '12.50', { targetTransactionId: 'p1' })],
      "field 'type': type VOID_CAPTURE cannot void transaction 'p1', which is a PAYMENT: its void is a VOID_PAYMENT.",
    ],
    [
      'a void of part of its target',
      (m: MerchantContext, o: string) => [lostRecord(m, o), followOn(m, o, 'v1', 'VOID_PAYMENT', '10.00', { targetTransactionId: 'p1' })],
      "field 'amount': amount 10.00 is not the amount of transaction 'p1' (12.50 USD): a void undoes its target whole.",
    ],
    [
      'a refund naming its target on an order nobody opened',
      (m: MerchantContext, o: string) => [lostRecord(m, `${o}-x`), followOn(m, o, 'r1', 'REFUND', '1.00', { targetTransactionId: 'p1' })],
      "field 'targetTransactionId': Order '%o' is not in the ledger, nor opened by an earlier line of the file: record the transaction refunded before its refund (a refund with no target on a new order is a standalone refund).",
    ],
    [
      'a capture of another merchant\'s order of the same id',
      (m: MerchantContext, o: string) => [lostRecord(testMerchant(), o, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' }), followOn(m, o, 'c1', 'CAPTURE', '1.00')],
      'Order \'%o\' does not exist: a capture needs an order with an authorization (apiOperation AUTHORIZE).',
    ],
    [
      'a capture on an order nobody opened',
      (m: MerchantContext, o: string) => [lostRecord(m, `${o}-x`), followOn(m, o, 'c1', 'CAPTURE', '1.00')],
      'Order \'%o\' does not exist: a capture needs an order with an authorization (apiOperation AUTHORIZE).',
    ],
  ])('%s is refused with what it breaks, and nothing of the file is written, in a dry run too', async (_, lines, message) => {
    const merchant = testMerchant();
    const good = newOrderId();
    const orderId = newOrderId();
    const file = [lostRecord(merchant, good), ...lines(merchant, orderId)];
    const refusal = `error: line ${file.length} (${merchant.id}/${orderId}/${String(file[file.length - 1].transactionId)}): refused, nothing written: ${message.replace('%o', orderId)}`;
    for (const options of [['--dry-run'], []]) {
      const run = await recordLost(file, ...options);
      expect(run).toMatchObject({ code: 1, err: `${refusal}\nerror: 1 refused line: nothing of the file ${options.length > 0 ? 'would be' : 'was'} written` });
      if (options.length === 0) expect(run.out).toBe('(no records)');
      for (const order of [good, orderId, `${orderId}-x`]) {
        expect((await ledgerState(merchant, order)).order).toBeNull();
      }
    }
  });
});

describe('records decided together', () => {
  it('the same record twice in a file is recorded once, in a dry run too', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const file = [lostRecord(merchant, orderId), lostRecord(merchant, orderId)];
    const dry = await recordLost(file, '--dry-run');
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out.split('\n').map((line) => line.split('\t')[0])).toEqual(['Would record (dry run):', 'Already recorded, nothing written:']);
    const run = await recordLost(file);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out.split('\n').map((line) => line.split('\t')[0])).toEqual(['Recorded:', 'Already recorded, nothing written:']);
  });

  it('a refund without its target is of the single payment or capture with something left to refund', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const file = [
      lostRecord(merchant, orderId, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' }),
      followOn(merchant, orderId, 'c1', 'CAPTURE', '20.00', { targetTransactionId: 'a1' }),
      followOn(merchant, orderId, 'r1', 'REFUND', '20.00', { targetTransactionId: 'c1' }),
      followOn(merchant, orderId, 'c2', 'CAPTURE', '20.00', { targetTransactionId: 'a1' }),
      // c1 is refunded whole: without the Excessive Refund privilege, c2 is the only one left.
      followOn(merchant, orderId, 'r2', 'REFUND', '10.00'),
    ];
    expect(await recordLost(file)).toMatchObject({ code: 0, err: '' });
    const { transactions } = await ledgerState(merchant, orderId);
    expect(transactions.map((t: JsonObject) => [t.id, (t.body as { transaction: JsonObject }).transaction.targetTransactionId])).toEqual([
      ['a1', undefined],
      ['c1', 'a1'],
      ['r1', 'c1'],
      ['c2', 'a1'],
      ['r2', 'c2'],
    ]);
  });

  it('a refund beyond what was captured is recorded when its line states the Excessive Refund privilege, as the gateway refunds a privileged merchant', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const beyond = followOn(merchant, orderId, 'r1', 'REFUND', '15.00', { excessiveRefund: true });
    const file = [lostRecord(merchant, orderId), beyond];
    const dry = await recordLost(file, '--dry-run');
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect((await ledgerState(merchant, orderId)).order).toBeNull();
    expect(await recordLost(file)).toMatchObject({ code: 0, err: '' });
    const { order, transactions } = await ledgerState(merchant, orderId);
    expect(order).toMatchObject({ status: 'EXCESSIVELY_REFUNDED', captured: '12.5000', refunded: '15.0000' });
    expect(transactions.map((t: JsonObject) => [t.id, t.type, t.amount, (t.body as { transaction: JsonObject }).transaction.targetTransactionId])).toEqual([
      ['p1', 'PAYMENT', '12.5000', undefined],
      ['r1', 'REFUND', '15.0000', 'p1'],
    ]);
    // Twice is once; the merchant's retry of the REFUND is answered from the record, with no acquirer call.
    expect(await recordLost(file)).toMatchObject({ code: 0, err: '' });
    const calls = await acquirerCalls('REFUND');
    const retried = await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '15.00', currency: 'USD' } });
    expect(retried).toMatchObject({ result: 'SUCCESS', transaction: { id: 'r1', amount: 15 }, order: { status: 'EXCESSIVELY_REFUNDED' } });
    expect(await acquirerCalls('REFUND')).toBe(calls);
  });

  it('a refund of a payment already refunded whole finds that payment as its target when its line states the privilege, and is refused without it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const refunded = [lostRecord(merchant, orderId), followOn(merchant, orderId, 'r1', 'REFUND', '12.50')];
    // Without the privilege nothing is left to refund: no target, and nothing of the file written.
    const refused = await recordLost([...refunded, followOn(merchant, orderId, 'r2', 'REFUND', '2.00')]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("refused, nothing written: field 'amount': Value '2.00' is invalid. The amount available for refund on this order is 0.00 USD.");
    expect((await ledgerState(merchant, orderId)).order).toBeNull();
    // With it the single payment is the target whatever is left, as for a privileged merchant's refund.
    expect(await recordLost([...refunded, followOn(merchant, orderId, 'r2', 'REFUND', '2.00', { excessiveRefund: true })])).toMatchObject({ code: 0, err: '' });
    const { order, transactions } = await ledgerState(merchant, orderId);
    expect(order).toMatchObject({ status: 'EXCESSIVELY_REFUNDED', captured: '12.5000', refunded: '14.5000' });
    expect(transactions.map((t: JsonObject) => [t.id, (t.body as { transaction: JsonObject }).transaction.targetTransactionId])).toEqual([
      ['p1', undefined],
      ['r1', 'p1'],
      ['r2', 'p1'],
    ]);
  });

  it('excessiveRefund is a REFUND\'s only, and a boolean: any other is a bad line, nothing of the file written', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    for (const [line, message] of [
      [lostRecord(merchant, orderId, { excessiveRefund: true }), "field 'excessiveRefund': excessiveRefund is a field of a REFUND only, not of a PAYMENT."],
      [followOn(merchant, orderId, 'r1', 'REFUND', '1.00', { excessiveRefund: 'yes' }), "field 'excessiveRefund': excessiveRefund must be true or false (JSON booleans)."],
    ] as const) {
      const run = await recordLost([lostRecord(merchant, orderId), line]);
      expect(run.code).toBe(2);
      expect(run.err).toContain(message);
      expect((await ledgerState(merchant, orderId)).order).toBeNull();
    }
  });

  it('a refund of a payment funded through a browser payment provider is refused: it is in the provider\'s records', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await app.record({
      envelope: { merchant, apiVersion: 100, requestId: 'seed-bp-1', authMethod: 'PASSWORD', fencingToken: nextFence() },
      orderId,
      transactionId: 'bp-1',
      apiOperation: 'INITIATE_BROWSER_PAYMENT',
      requestHash: testRequestHasher().hash({ apiOperation: 'INITIATE_BROWSER_PAYMENT' }),
      mode: 'CREATE',
      order: { currency: 'USD' },
      transaction: { type: 'PAYMENT', amount: '50.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'PROVIDER_A' },
      response: { sourceOfFunds: { type: 'PROVIDER_A' } },
    });
    const before = await ledgerState(merchant, orderId);
    const run = await recordLost([followOn(merchant, orderId, 'r1', 'REFUND', '20.00', { targetTransactionId: 'bp-1' })]);
    expect(run).toEqual({
      code: 1,
      out: '(no records)',
      err:
        `error: line 1 (${merchant.id}/${orderId}/r1): refused, nothing written: field 'targetTransactionId': Transaction 'bp-1' was funded through a browser payment provider: ` +
        "what acts on it is in the provider's records, not the acquirer's.\nerror: 1 refused line: nothing of the file was written",
    });
    expect(await ledgerState(merchant, orderId)).toEqual(before);
  });

  it('on an order with a notification URL of a merchant whose notifications are off: nothing announced', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'v1', 'VERIFY', { order: { currency: 'USD', notificationUrl: HOOKS }, sourceOfFunds: payRequest('1').sourceOfFunds as JsonObject });
    expect((await orderFields(merchant, orderId))?.notificationUrl).toBe(HOOKS);
    const recorded = await recordLost([lostRecord(merchant, orderId, { transactionId: 'a1', type: 'AUTHORIZATION', amount: '40.00' })], '--json');
    expect(JSON.parse(recorded.out)).toEqual([expect.objectContaining({ status: 'RECORDED', notified: false })]);
    expect((await ledgerState(merchant, orderId)).outbox).toEqual([]);
  });

  it('a ledger changed between the check and the write stops the file at the line it now refuses: the lines before stay written, none after', async () => {
    const merchant = testMerchant();
    const [first, second, third] = [newOrderId(), newOrderId(), newOrderId()];
    const file = await fileOf([first, second, third].map((orderId) => lostRecord(merchant, orderId)));
    const lost = recordLostOver(app.dataSource, logger);
    const run = await command(['record-lost', '--file', file], {
      preview: (records) => lost.preview(records),
      execute: async (record) => {
        // The merchant's own PAY of the second order reaches the ledger after the check (the edge reopened early).
        if (record.orderId === second) await operateAs(app, merchant, second, 'p1', 'PAY', payRequest('30.00'));
        return lost.execute(record);
      },
    });
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `error: line 2 (${merchant.id}/${second}/p1): refused, nothing written from this line on: Transaction 'p1' on order '${second}' of merchant '${merchant.id}' ` +
        "is already in the ledger as PAY PAYMENT 30.00 USD SUCCESS (APPROVED), which differs from the record: nothing written, the ledger's is kept.",
    );
    expect(run.out.split('\n').map((line) => line.split('\t').slice(0, 2))).toEqual([['Recorded:', `${merchant.id}/${first}/p1`]]);
    expect((await ledgerState(merchant, first)).order).toMatchObject({ status: 'CAPTURED' });
    expect((await ledgerState(merchant, third)).order).toBeNull();
  });
});

describe('the file on standard input', () => {
  it('reads `--file -` from standard input, as `kubectl exec -i` gives it to the image\'s main', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const main = spawn(
      process.execPath,
      ['-r', './tools/scripts/register-ts.cjs', 'apps/order-transaction/src/main.ts', 'transactions', 'record-lost', '--file', '-', '--dry-run'],
      {
        cwd: resolve(__dirname, '../../../..'),
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LOG_LEVEL: 'warn' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    main.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    main.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((done) => main.once('exit', done));
    main.stdin.end(`${JSON.stringify(lostRecord(merchant, orderId))}\n`);

    expect([await exited, out.trim().split('\t').slice(0, 3), err]).toEqual([0, ['Would record (dry run):', `${merchant.id}/${orderId}/p1`, 'PAYMENT'], '']);
    expect((await ledgerState(merchant, orderId)).order).toBeNull();
  }, 60_000);
});
