import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { recordLostOver, resolveUnknownOver } from './operator-commands';
import { LedgerTestApp, newOrderId, operateAs, rejection, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';
import { runTransactionsCommand } from './transactions.command';

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

async function command(args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const logger = createLogger({ service: 'order-transaction', level: 'silent' });
  const ledger = {
    unresolved: UnresolvedTransactions.over(app.dataSource),
    resolution: resolveUnknownOver(app.dataSource, logger),
    lost: recordLostOver(app.dataSource, logger),
  };
  const code = await runTransactionsCommand(args, ledger, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** `record-lost` over a file holding these lines. */
async function recordLost(lines: (JsonObject | string)[], ...options: string[]): Promise<Run> {
  const file = join(dir, `${randomBytes(4).toString('hex')}.jsonl`);
  await writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return command(['record-lost', '--file', file, ...options]);
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
    expect((await recordLost([lostRecord(merchant, orderId)])).code).toBe(0);
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
    ['an unknown operation', { type: 'CHARGE' }, "field 'type': type must be one of AUTHORIZATION, PAYMENT (CAPTURE, REFUND and VOID_* are not recorded by this command)."],
    ['a full card number', { card: { number: TEST_CARD } }, "field 'card.number': card.number must be masked as the acquirer shows it (512345xxxxxx0008): a full card number is never recorded."],
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
