import { randomBytes } from 'node:crypto';
import { GatewayError, JsonObject, MerchantContext, OrderApiOperation } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import {
  LedgerTestApp,
  newOrderId,
  operateAs,
  startLedgerTestApp,
  statementsOf,
  testMerchant,
} from './testing/ledger-test-app';

/**
 * Agreements (docs/decisions/agreements.md): the real VERIFY and PAY handlers on the in-process
 * bus, the real ledger and agreements table in Postgres, the built-in test acquirer.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

const operate = (merchant: MerchantContext, orderId: string, transactionId: string, apiOperation: OrderApiOperation, body: JsonObject) =>
  operateAs(app, merchant, orderId, transactionId, apiOperation, body);

type Expiry = { month: string; year: string };
const card = (expiry: Expiry = TEST_EXPIRY.APPROVED) => ({
  type: 'CARD',
  provided: { card: { number: TEST_CARD, expiry: { ...expiry } } },
});
const verify = (
  merchant: MerchantContext,
  agreement: JsonObject | undefined,
  expiry: Expiry = TEST_EXPIRY.APPROVED,
  orderId = newOrderId(),
) =>
  operate(merchant, orderId, 'v1', 'VERIFY', {
    order: { currency: 'USD' },
    sourceOfFunds: card(expiry),
    ...(agreement ? { agreement } : {}),
  });
const pay = (merchant: MerchantContext, agreement: JsonObject, orderId = newOrderId(), expiry: Expiry = TEST_EXPIRY.APPROVED) =>
  operate(merchant, orderId, 'p1', 'PAY', {
    order: { amount: '12.00', currency: 'USD' },
    sourceOfFunds: card(expiry),
    agreement,
  });

const agreementId = () => `agr-${randomBytes(5).toString('hex')}`;
const FIRST = {
  type: 'RECURRING',
  amountVariability: 'FIXED',
  startDate: '2039-01-01',
  minimumAmountPerPayment: '5.50',
  paymentFrequency: 'MONTHLY',
};

async function agreementRows(merchant: MerchantContext, id: string) {
  return app.dataSource.query(
    `SELECT type, amount_variability AS "amountVariability", start_date::text AS "startDate",
            minimum_amount_per_payment::text AS minimum, amount_currency AS "amountCurrency",
            payment_frequency AS "paymentFrequency", established_order_id AS "orderId",
            established_transaction_id AS "transactionId", established_operation AS "apiOperation"
       FROM order_transaction.agreements WHERE merchant_id = $1 AND agreement_id = $2`,
    [merchant.id, id],
  ) as Promise<Record<string, string>[]>;
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: GatewayError) => err,
  );

describe('an agreement established by a VERIFY', () => {
  it('is kept with its terms and origin, and a later VERIFY naming only its id answers the established type and terms', async () => {
    const merchant = testMerchant();
    const id = agreementId();
    const orderId = newOrderId();
    expect(await verify(merchant, { id, ...FIRST }, TEST_EXPIRY.APPROVED, orderId)).toMatchObject({
      result: 'SUCCESS',
    });
    expect(await agreementRows(merchant, id)).toEqual([
      {
        type: 'RECURRING',
        amountVariability: 'FIXED',
        startDate: '2039-01-01',
        minimum: '5.500',
        amountCurrency: 'USD',
        paymentFrequency: 'MONTHLY',
        orderId,
        transactionId: 'v1',
        apiOperation: 'VERIFY',
      },
    ]);

    const later = await verify(merchant, { id });
    expect(later).toMatchObject({ result: 'SUCCESS' });
    expect(later.agreement).toEqual({ id, ...FIRST, minimumAmountPerPayment: 5.5 });
  });

  it('keeps every term its first payment gave, each as given, and a later VERIFY naming only its id is told all of them', async () => {
    // Terms of one type side by side (two amounts, two counts, three retailer names): each must
    // come back as itself, not as its neighbour.
    const merchant = testMerchant();
    const id = agreementId();
    const terms = {
      type: 'INSTALLMENT',
      amountVariability: 'VARIABLE',
      customData: 'plan-gold',
      startDate: '2039-01-01',
      expiryDate: '2040-06-30',
      minimumAmountPerPayment: '5.50',
      maximumAmountPerPayment: '80.25',
      minimumDaysBetweenPayments: 14,
      numberOfPayments: 12,
      paymentFrequency: 'MONTHLY',
      retailer: { abbreviatedTradingName: 'Shop', merchantCategoryCode: '5411', tradingName: 'The Shop Ltd' },
    };
    expect(await verify(merchant, { id, ...terms })).toMatchObject({ result: 'SUCCESS' });
    expect((await verify(merchant, { id })).agreement).toEqual({
      id,
      ...terms,
      minimumAmountPerPayment: 5.5,
      maximumAmountPerPayment: 80.25,
    });
  });

  it('costs a VERIFY without an agreement id no statement; with one, one read before the acquirer and the insert after', async () => {
    const merchant = testMerchant();
    const without = await statementsOf(() => verify(merchant, { type: 'UNSCHEDULED' }));
    expect(without.filter((sql) => sql.includes('agreements'))).toEqual([]);
    expect(without).toHaveLength(2);

    const id = agreementId();
    const first = await statementsOf(() => verify(merchant, { id, type: 'UNSCHEDULED' }));
    expect(first.map((sql) => sql.slice(0, 40))).toEqual([
      expect.stringMatching(/^SELECT o\.merchant_id/),
      expect.stringMatching(/^SELECT type, amount_variability/),
      expect.stringMatching(/^WITH new_order AS/),
      expect.stringMatching(/^INSERT INTO order_transaction\.agreements/),
    ]);
    // Known: the read finds it, nothing is written.
    const known = await statementsOf(() => verify(merchant, { id }));
    expect(known.filter((sql) => sql.includes('agreements'))).toHaveLength(1);
    expect(known).toHaveLength(3);
  });

  it('is not established by a declined first VERIFY: the next successful one establishes it with its own terms', async () => {
    const merchant = testMerchant();
    const id = agreementId();
    expect(await verify(merchant, { id, type: 'INSTALLMENT' }, TEST_EXPIRY.DECLINED)).toMatchObject({
      result: 'FAILURE',
    });
    expect(await agreementRows(merchant, id)).toEqual([]);
    expect(await verify(merchant, { id, ...FIRST })).toMatchObject({ result: 'SUCCESS' });
    expect(await agreementRows(merchant, id)).toMatchObject([{ type: 'RECURRING' }]);
  });

  it('is established once by two first payments racing: the first to commit wins and later payments get its type', async () => {
    // The acquirer's latency holds both past their reads of the (still absent) agreement.
    const merchant = testMerchant({ testAcquirer: { latencyMs: 300 } });
    const id = agreementId();
    const [recurring, installment] = [newOrderId(), newOrderId()];
    const answers = await Promise.all([
      verify(merchant, { id, ...FIRST }, TEST_EXPIRY.APPROVED, recurring),
      verify(merchant, { id, type: 'INSTALLMENT' }, TEST_EXPIRY.APPROVED, installment),
    ]);
    expect(answers.map((body) => body.result)).toEqual(['SUCCESS', 'SUCCESS']);
    const rows = await agreementRows(merchant, id);
    expect(rows).toHaveLength(1);
    const [{ type, orderId }] = rows;
    expect(orderId).toBe(type === 'RECURRING' ? recurring : installment);
    expect((await verify(merchant, { id })).agreement).toMatchObject({ id, type });
  });

  it("is the merchant's own: another merchant's agreement of the same id is another agreement", async () => {
    const [first, second] = [testMerchant(), testMerchant()];
    const id = agreementId();
    await verify(first, { id, ...FIRST });
    expect(await verify(second, { id, type: 'UNSCHEDULED' })).toMatchObject({
      result: 'SUCCESS',
      agreement: { id, type: 'UNSCHEDULED' },
    });
    expect((await verify(second, { id })).agreement).toEqual({ id, type: 'UNSCHEDULED' });
    expect((await verify(first, { id })).agreement).toMatchObject({ type: 'RECURRING' });
    expect(await agreementRows(second, id)).toMatchObject([{ type: 'UNSCHEDULED' }]);
  });

  it('refuses a date of year 0000, which the table cannot keep: it is no calendar date', async () => {
    // Postgres has no year 0: the insert after a successful first payment would fail, and the
    // agreement its 201 answered would never be established.
    const merchant = testMerchant();
    const id = agreementId();
    for (const [field, date] of [
      ['expiryDate', '0000-12-31'],
      ['startDate', '0000-01-01'],
    ] as const) {
      const error = await refusal(verify(merchant, { id, type: 'UNSCHEDULED', [field]: date }));
      expect(error).toMatchObject({ field: `agreement.${field}`, validationType: 'INVALID' });
    }
    expect(await agreementRows(merchant, id)).toEqual([]);
  });
});

describe('a later payment on an established agreement', () => {
  it('PAY with {id, type: RECURRING} and no amountVariability succeeds once the first payment stated it, and answers it', async () => {
    const merchant = testMerchant();
    const id = agreementId();
    // Without an established agreement the spec's rule holds, as for VERIFY.
    await expect(pay(merchant, { id, type: 'RECURRING' })).rejects.toMatchObject({
      field: 'agreement.amountVariability',
      validationType: 'MISSING',
    });
    await verify(merchant, { id, ...FIRST });
    const paid = await pay(merchant, { id, type: 'RECURRING' });
    expect(paid).toMatchObject({
      result: 'SUCCESS',
      agreement: {
        id,
        type: 'RECURRING',
        amountVariability: 'FIXED',
        minimumAmountPerPayment: 5.5,
        startDate: '2039-01-01',
      },
    });
  });

  it('is refused 400 on agreement.type when it states another type, and nothing is recorded', async () => {
    const merchant = testMerchant();
    const id = agreementId();
    await verify(merchant, { id, ...FIRST });
    const orderId = newOrderId();
    const error = await refusal(pay(merchant, { id, type: 'UNSCHEDULED' }, orderId));
    expect(error).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'agreement.type',
      validationType: 'INVALID',
    });
    expect(error.explanation).toContain(
      `Agreement '${id}' was established as RECURRING by its first payment; an agreement's type does not change.`,
    );
    const verifyError = await refusal(verify(merchant, { id, type: 'OTHER' }, TEST_EXPIRY.APPROVED, orderId));
    expect(verifyError).toMatchObject({ field: 'agreement.type' });
    const recorded = await app.dataSource.query(
      'SELECT count(*)::int AS count FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2',
      [merchant.id, orderId],
    );
    expect(recorded).toEqual([{ count: 0 }]);
    expect(await agreementRows(merchant, id)).toMatchObject([{ type: 'RECURRING' }]);
  });

  it('is not established by a declined first PAY: the next successful payment establishes it with its own terms', async () => {
    const merchant = testMerchant();
    const id = agreementId();
    expect(await pay(merchant, { id, type: 'INSTALLMENT' }, newOrderId(), TEST_EXPIRY.DECLINED)).toMatchObject({
      result: 'FAILURE',
    });
    expect(await agreementRows(merchant, id)).toEqual([]);
    expect(await pay(merchant, { id, type: 'UNSCHEDULED' })).toMatchObject({ result: 'SUCCESS' });
    expect(await agreementRows(merchant, id)).toMatchObject([{ type: 'UNSCHEDULED' }]);
  });

  it('establishes the agreement when it is the first successful payment naming it', async () => {
    const merchant = testMerchant();
    const id = agreementId();
    const orderId = newOrderId();
    await pay(merchant, { id, type: 'UNSCHEDULED', maximumAmountPerPayment: '100' }, orderId);
    expect(await agreementRows(merchant, id)).toMatchObject([
      { type: 'UNSCHEDULED', orderId, transactionId: 'p1', apiOperation: 'PAY' },
    ]);
    expect((await verify(merchant, { id })).agreement).toEqual({
      id,
      type: 'UNSCHEDULED',
      maximumAmountPerPayment: 100,
    });
  });
});
