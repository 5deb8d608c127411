import { randomBytes } from 'node:crypto';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { browserPaymentPayerDataErasure, runPayerDataCommand } from '@gateway/browser-payment/feature';
import { JsonObject, withoutPersonalData } from '@gateway/contracts';
import { ORDER_TRANSACTION_SCHEMA, PayerDataRepository } from '@gateway/order-transaction/data-access';
import { ErasePayerData } from '@gateway/order-transaction/domain';
import { runPayerDataCommand as runLedgerPayerDataCommand } from '@gateway/order-transaction/feature';
import { CommandIo, createLogger, dataSourceToken, runPayerDataErase } from '@gateway/platform';
import { DataSource } from 'typeorm';
import { bothErasures, STANDALONE_PAYER_DATA_ERASE } from './standalone-payer-data';
import { startBrowserPaymentGateway, TestGateway, TestGatewayMerchant, twoBooksOrder } from './testing/test-gateway';

/**
 * browser-payment's `payer-data erase` (EraseBrowserPaymentPayerData) against the real
 * browser_payment schema: browser payments made through the edge's HTTP surface with the real
 * ledger and browser-payment (the payer's journey followed with plain HTTP), a payer's personal
 * data in every group INITIATE_BROWSER_PAYMENT takes and in the return URL's query, erased by
 * the command as browser-payment's main wires it, then read back through the merchant's GET and
 * replay (after the ledger's own command) and the payer's way back.
 */
let gateway: TestGateway;
let payments: DataSource;
let ledger: DataSource;

beforeAll(async () => {
  gateway = await startBrowserPaymentGateway();
  const database = (schema: string) => gateway.running.app.get<string, DataSource>(dataSourceToken(schema) as string, { strict: false });
  payments = database(BROWSER_PAYMENT_SCHEMA.schema);
  ledger = database(ORDER_TRANSACTION_SCHEMA.schema);
});

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

const RETURN_URL = 'https://shop.example/checkout/return?cart=7&email=zelda%40example.org#paid';
/** Distinctive values in every personal field: none may be left in the payment's row. */
const PERSONAL_VALUES = ['zelda', 'Zelda', 'Quux', '10 Privet Drive', 'SW1A 2AA', '+4479460000', 'mauve', 'leave it with the neighbour', 'called back', 'payer@wallet.example', 'Simulated Payer', 'cart=7'];

function initiateBody(paymentConfirmation: 'CONFIRM_AT_PROVIDER' | 'CONFIRM_AT_MERCHANT' = 'CONFIRM_AT_PROVIDER'): JsonObject {
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation } },
    order: { ...twoBooksOrder(), reference: 'ref-7', custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
    customer: { email: 'zelda@example.org' },
    shipping: {
      address: { street: '10 Privet Drive', city: 'Little Whinging', postcodeZip: 'SW1A 2AA', country: 'GBR' },
      contact: { firstName: 'Zelda', lastName: 'Quux', email: 'zelda@example.org', phone: '+4479460000' },
    },
    transaction: { reference: 'tx-7', merchantNote: 'called back' },
    sourceOfFunds: { type: 'PROVIDER_A' },
  };
}

interface Payment {
  merchant: TestGatewayMerchant;
  orderId: string;
  initiated: JsonObject;
  redirectUrl: string;
  /** The provider's way back to the gateway (/bpui/provider_a/in/BP-...), once the payer approved. */
  inUrl?: string;
}

function put(merchant: TestGatewayMerchant, orderId: string, body: JsonObject, transactionId = 'bp-1') {
  return gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/${transactionId}`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function initiated(confirmation?: 'CONFIRM_AT_MERCHANT', body = initiateBody(confirmation)): Promise<Payment> {
  const merchant = await gateway.newMerchant();
  const orderId = `bp-${randomBytes(5).toString('hex')}`;
  const response = await put(merchant, orderId, body);
  expect(response.status).toBe(201);
  const redirectUrl = (response.body.browserPayment as JsonObject).redirectUrl as string;
  return { merchant, orderId, initiated: response.body, redirectUrl };
}

/** The payer opens the provider's page, approves, and comes back through the gateway. */
async function approved(payment: Payment): Promise<Payment> {
  const page = await gateway.fetch(payment.redirectUrl);
  const action = /action="([^"]+\/approve)"/.exec(page.text)![1];
  const decided = await gateway.fetch(action, { method: 'POST' });
  const inUrl = decided.headers.get('location')!;
  expect((await gateway.fetch(inUrl)).status).toBe(303);
  return { ...payment, inUrl };
}

async function completed(): Promise<Payment> {
  return approved(await initiated());
}

/** The payment's row as stored, with its version (xmin): a write of it shows. */
async function row({ merchant, orderId }: Payment): Promise<JsonObject> {
  const [found] = await payments.query(
    `SELECT xmin::text AS version, amount::text, currency, interaction_status AS "interactionStatus", result, gateway_code AS "gatewayCode",
            payer_outcome AS "payerOutcome", provider_reference AS "providerReference", token_hash AS "tokenHash", token_expires_at AS "tokenExpiresAt",
            time_completed AS "timeCompleted", updated_at AS "updatedAt", return_url AS "returnUrl", request, provider_details AS "providerDetails"
       FROM browser_payment.payments WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return found;
}

type Run = { code: number; out: string; err: string };

function captured(): { io: CommandIo; run: (code: number) => Run } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t) }, run: (code) => ({ code, out: out.join('\n'), err: err.join('\n') }) };
}

const logger = createLogger({ service: 'gateway', level: 'silent' });

/** browser-payment's command, as its main wires it. */
async function erase(...args: string[]): Promise<Run> {
  const { io, run } = captured();
  return run(await runPayerDataCommand(args, browserPaymentPayerDataErasure(payments, logger), io));
}

/** order-transaction's command on the same orders, as its main wires it. */
async function eraseLedger(...args: string[]): Promise<Run> {
  const { io, run } = captured();
  return run(await runLedgerPayerDataCommand(args, new ErasePayerData(PayerDataRepository.over(ledger), logger), io));
}

async function retrieveTransaction({ merchant, orderId }: Payment): Promise<JsonObject> {
  const response = await gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/bp-1`, { headers: { authorization: merchant.authorization } });
  expect(response.status).toBe(200);
  return response.body;
}

const keys = (value: unknown): string[] => Object.keys(value as JsonObject).sort();

describe('payer-data erase (browser-payment)', () => {
  it('strips the payer\'s data from a completed payment\'s request, provider details and return URL, and keeps the money', async () => {
    // A payment that ended before its request was minimised at the end of the journey (2026-11-27):
    // the request it kept while under way is written back, as such a payment still holds it.
    const open = await initiated();
    const { request: whole } = await row(open);
    const payment = await approved(open);
    await payments.query('UPDATE browser_payment.payments SET request = $3::jsonb WHERE merchant_id = $1 AND order_id = $2', [
      payment.merchant.id,
      payment.orderId,
      JSON.stringify(whole),
    ]);
    const before = await row(payment);
    expect(before).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', returnUrl: RETURN_URL });
    // The data is really there to erase: in the request, the provider's details and the return URL.
    for (const value of ['zelda@example.org', '10 Privet Drive', 'mauve', 'called back', 'payer@wallet.example']) {
      expect(JSON.stringify(before)).toContain(value);
    }

    const run = await erase('erase', payment.merchant.id, payment.orderId);
    expect(run).toEqual({
      code: 0,
      err: '',
      out: [
        `Erased:\t${payment.merchant.id}/${payment.orderId}\t1 browser payment`,
        'Orders: 1 erased, 0 with nothing to erase, 0 not found, 0 refused. Changed: 1 browser payment.',
      ].join('\n'),
    });

    const after = await row(payment);
    for (const value of PERSONAL_VALUES) {
      expect(JSON.stringify(after)).not.toContain(value);
    }
    // Every other column as it was; only the version moved.
    const { version, returnUrl, request, providerDetails, ...columns } = after;
    const { version: versionBefore, returnUrl: _r, request: requestBefore, providerDetails: _p, ...columnsBefore } = before;
    expect(columns).toEqual(columnsBefore);
    expect(version).not.toBe(versionBefore);
    // Per field, exactly what is left.
    expect(returnUrl).toBe('https://shop.example/checkout/return');
    expect(providerDetails).toEqual({});
    expect(keys(requestBefore)).toEqual(['browserPayment', 'customer', 'order', 'shipping', 'sourceOfFunds', 'transaction']);
    expect(keys(request)).toEqual(['browserPayment', 'order', 'sourceOfFunds', 'transaction']);
    expect((request as JsonObject).browserPayment).toEqual({
      returnUrl: 'https://shop.example/checkout/return',
      provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' },
    });
    const { custom: _c, customerNote: _n, ...order } = (requestBefore as JsonObject).order as JsonObject;
    expect((request as JsonObject).order).toEqual(order);
    expect(keys(order)).toEqual(['amount', 'currency', 'description', 'item', 'itemAmount', 'reference', 'shippingAndHandlingAmount']);
    expect((request as JsonObject).transaction).toEqual({ reference: 'tx-7' });
    expect((request as JsonObject).sourceOfFunds).toEqual({ type: 'PROVIDER_A' });

    // The payer's way back, reloaded after the erasure: still to the merchant's page, told the ids.
    const back = await gateway.fetch(payment.inUrl!);
    expect(back.headers.get('location')).toBe(`https://shop.example/checkout/return?orderId=${payment.orderId}&transactionId=bp-1`);
  });

  it('with the ledger\'s command run too, GET and the merchant\'s replay of the initiate answer the same money without the payer\'s data', async () => {
    const payment = await completed();
    const got = await retrieveTransaction(payment);
    expect(got).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'CAPTURED', totalCapturedAmount: 30, custom: { colour: 'mauve' } },
      shipping: { contact: { email: 'zelda@example.org' } },
      sourceOfFunds: { provided: { provider_a: { accountEmail: 'payer@wallet.example' } } },
      browserPayment: { returnUrl: RETURN_URL },
    });

    expect((await erase('erase', payment.merchant.id, payment.orderId)).code).toBe(0);
    expect((await eraseLedger('erase', payment.merchant.id, payment.orderId)).code).toBe(0);

    // GET: what it answered, without the personal fields and with the return URL's origin and path only.
    const gotAfter = await retrieveTransaction(payment);
    expect(gotAfter).toEqual(withoutPersonalData(got));
    expect(gotAfter).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'bp-1', type: 'PAYMENT', amount: 30, currency: 'EUR', reference: 'tx-7' },
      order: { status: 'CAPTURED', amount: 30, totalCapturedAmount: 30, description: 'Two books', reference: 'ref-7' },
      browserPayment: { interaction: { status: 'COMPLETED' }, returnUrl: 'https://shop.example/checkout/return' },
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: {} } },
    });
    expect(JSON.stringify(gotAfter)).not.toMatch(/zelda|Privet|mauve|neighbour|called back|payer@wallet|Simulated Payer|cart=7/i);

    // The replay of the initiate: the ledger's stored answer, stripped, and nothing done again.
    const rowBefore = await row(payment);
    const replay = await put(payment.merchant, payment.orderId, initiateBody());
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(withoutPersonalData(payment.initiated));
    expect(replay.body).toMatchObject({ result: 'PENDING', order: { amount: 30, currency: 'EUR' }, transaction: { id: 'bp-1', amount: 30 } });
    expect(await row(payment)).toEqual(rowBefore);
  });

  it('refuses an order whose journey is not over, changes nothing of it, and erases it once the journey ended', async () => {
    // Initiated (the payer never left) and back, waiting for the merchant's confirm: both still need their request and return URL.
    const open = await initiated();
    const waiting = await approved(await initiated('CONFIRM_AT_MERCHANT'));
    const openBefore = await row(open);
    const waitingBefore = await row(waiting);
    expect(waitingBefore).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });

    const refused = await erase('erase', open.merchant.id, open.orderId);
    expect(refused).toEqual({
      code: 1,
      err: `error: ${open.merchant.id}/${open.orderId}: a browser payment of the order is not over yet (its request and return URL are still needed): run again once its journey has ended or expired: nothing changed`,
      out: 'Orders: 0 erased, 0 with nothing to erase, 0 not found, 1 refused. Changed: 0 browser payments.',
    });
    const dry = await erase('erase', waiting.merchant.id, waiting.orderId, '--dry-run', '--json');
    expect(dry.code).toBe(1);
    expect(JSON.parse(dry.out).orders).toEqual([{ merchantId: waiting.merchant.id, orderId: waiting.orderId, status: 'REFUSED', payments: 0, unfinished: 1 }]);
    expect((await erase('erase', waiting.merchant.id, waiting.orderId)).code).toBe(1);
    expect(await row(open)).toEqual(openBefore);
    expect(await row(waiting)).toEqual(waitingBefore);

    // The merchant confirms: the journey is over (its request kept without the payer from then on),
    // and the same command now erases the rest (the return URL's query, the payer's account).
    const confirmed = await put(waiting.merchant, waiting.orderId, { apiOperation: 'CONFIRM_BROWSER_PAYMENT' });
    expect(confirmed.body).toMatchObject({ result: 'SUCCESS' });
    expect((await erase('erase', waiting.merchant.id, waiting.orderId)).out).toContain('Orders: 1 erased');
    expect(JSON.stringify(await row(waiting))).not.toMatch(/zelda|cart=7|payer@wallet/);
  });

  it('run again, changes nothing and says so', async () => {
    const payment = await completed();
    await erase('erase', payment.merchant.id, payment.orderId);
    const erased = await row(payment);

    const again = await erase('erase', payment.merchant.id, payment.orderId, payment.orderId);
    expect(again).toEqual({
      code: 0,
      err: '',
      out: [
        `Nothing to erase, nothing changed:\t${payment.merchant.id}/${payment.orderId}\t0 browser payments`,
        'Orders: 0 erased, 1 with nothing to erase, 0 not found, 0 refused. Changed: 0 browser payments.',
      ].join('\n'),
    });
    // Not rewritten: the version as it was.
    expect(await row(payment)).toEqual(erased);
  });

  it('--dry-run counts what it would strip and writes nothing', async () => {
    const payment = await completed();
    const before = await row(payment);

    const dry = await erase('erase', payment.merchant.id, payment.orderId, '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toEqual({
      orders: [{ merchantId: payment.merchant.id, orderId: payment.orderId, status: 'WOULD_ERASE', payments: 1, unfinished: 0 }],
      total: { erased: 0, wouldErase: 1, unchanged: 0, notFound: 0, refused: 0, payments: 1 },
    });
    expect(await row(payment)).toEqual(before);
  });

  it('--dry-run does not wait for a step holding the payment\'s row', async () => {
    const payment = await completed();
    const before = await row(payment);
    const step = payments.createQueryRunner();
    await step.connect();
    await step.startTransaction();
    try {
      await step.query('SELECT 1 FROM browser_payment.payments WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [payment.merchant.id, payment.orderId]);
      const dry = erase('erase', payment.merchant.id, payment.orderId, '--dry-run', '--json');
      const answered = await Promise.race([dry.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
      expect(answered).toBe(true);
      expect(JSON.parse((await dry).out).orders).toEqual([{ merchantId: payment.merchant.id, orderId: payment.orderId, status: 'WOULD_ERASE', payments: 1, unfinished: 0 }]);
    } finally {
      await step.rollbackTransaction();
      await step.release();
    }
    expect(await row(payment)).toEqual(before);
  });

  it('refuses an order the merchant has no browser payment on (another merchant\'s), and changes nothing of it', async () => {
    const payment = await completed();
    const stranger = await gateway.newMerchant();
    const before = await row(payment);

    const refused = await erase('erase', stranger.id, payment.orderId);
    expect(refused).toEqual({
      code: 1,
      err: `error: ${stranger.id}/${payment.orderId}: the merchant has no browser payment on this order: nothing changed`,
      out: 'Orders: 0 erased, 0 with nothing to erase, 1 not found, 0 refused. Changed: 0 browser payments.',
    });
    expect(await row(payment)).toEqual(before);
  });

  it('waits for a step holding the payment\'s row, and strips what it wrote', async () => {
    const payment = await completed();
    // A step in flight: it holds the payment's row, as a step's conditional UPDATE does until its
    // ledger record commits, and writes the provider's details (the payer's account, and more).
    const step = payments.createQueryRunner();
    await step.connect();
    await step.startTransaction();
    try {
      await step.query('SELECT 1 FROM browser_payment.payments WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [payment.merchant.id, payment.orderId]);
      let done = false;
      const erasing = erase('erase', payment.merchant.id, payment.orderId).finally(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBe(false);
      await step.query(
        `UPDATE browser_payment.payments SET provider_details = '{"accountEmail":"late@example.org","accountHolder":"Late Payer","verified":true}'::jsonb
          WHERE merchant_id = $1 AND order_id = $2`,
        [payment.merchant.id, payment.orderId],
      );
      await step.commitTransaction();
      expect((await erasing).code).toBe(0);
    } finally {
      await step.release();
    }
    // Read after the step committed, not before: its write is kept, without the payer's data.
    expect((await row(payment)).providerDetails).toEqual({ verified: true });
  });
});

/** What may name the payer in a payment's kept request (the return URL's query included); none of it is kept once the journey ended. */
const PAYER_IN_REQUEST = /zelda|Privet|SW1A 2AA|Quux|\+4479460000|mauve|neighbour|called back|back door|cart=7|#paid/i;

/** The request a finished payment keeps: the payer's groups and fields gone, the return URL cut, the rest as it was. */
function keptRequest(whole: JsonObject): JsonObject {
  const { customer: _c, shipping: _s, ...rest } = whole;
  const { custom: _custom, customerNote: _note, ...order } = rest.order as JsonObject;
  const { merchantNote: _m, ...transaction } = rest.transaction as JsonObject;
  return {
    ...rest,
    browserPayment: { ...(rest.browserPayment as JsonObject), returnUrl: 'https://shop.example/checkout/return' },
    order,
    transaction,
  };
}

/** The gateway's way back to the shop, with the merchant's own query and fragment as the merchant wrote them. */
const backToShop = (orderId: string) => `https://shop.example/checkout/return?cart=7&email=zelda%40example.org&orderId=${orderId}&transactionId=bp-1#paid`;

describe("a browser payment's request once its journey ended (data minimisation, 2026-11-27)", () => {
  it("completed: kept without the payer in the same write; GET, the replay of the initiate, the way back and a refund answer as before", async () => {
    const open = await initiated();
    const pending = await row(open);
    expect(pending).toMatchObject({ interactionStatus: 'INITIATED', result: 'PENDING' });
    expect(JSON.stringify(pending.request)).toMatch(PAYER_IN_REQUEST);
    const payment = await approved(open);

    const ended = await row(payment);
    expect(ended).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', gatewayCode: 'APPROVED', amount: '30.0000', returnUrl: RETURN_URL });
    expect(ended.request).toEqual(keptRequest(pending.request as JsonObject));
    expect(JSON.stringify(ended.request)).not.toMatch(PAYER_IN_REQUEST);
    expect(keys(ended.request)).toEqual(['browserPayment', 'order', 'sourceOfFunds', 'transaction']);
    // Kept: the payer's account as the provider gave it (later captures, voids and refunds answer it) and the return URL.
    expect(ended.providerDetails).toEqual({ accountEmail: 'payer@wallet.example', accountHolder: 'Simulated Payer' });

    // The ledger's records are the completion's, made from the whole request: GET shows the payer's data as before.
    const got = await retrieveTransaction(payment);
    expect(got).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'CAPTURED', custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
      shipping: { address: { street: '10 Privet Drive' }, contact: { email: 'zelda@example.org', lastName: 'Quux' } },
      transaction: { merchantNote: 'called back', reference: 'tx-7' },
      sourceOfFunds: { provided: { provider_a: { accountEmail: 'payer@wallet.example' } } },
      browserPayment: { interaction: { status: 'COMPLETED' }, returnUrl: RETURN_URL },
    });
    // The replay of the initiate: the ledger's stored answer, as first given, and nothing of the payment written.
    const replay = await put(payment.merchant, payment.orderId, initiateBody());
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(payment.initiated);
    // The payer's way back, reloaded: to the merchant's page with its own query.
    const back = await gateway.fetch(payment.inUrl!);
    expect([back.status, back.headers.get('location')]).toEqual([303, backToShop(payment.orderId)]);
    expect(await row(payment)).toEqual(ended);

    // A refund after the end: the payer's account in its sourceOfFunds, as the provider gave it.
    const refund = await put(payment.merchant, payment.orderId, { apiOperation: 'REFUND', transaction: { amount: '5.00', currency: 'EUR' } }, 'refund-1');
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { type: 'REFUND', amount: 5 },
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@wallet.example', accountHolder: 'Simulated Payer' } } },
    });
  });

  it('cancelled by the payer: kept without the payer too, and the way back still leads to the shop', async () => {
    const open = await initiated();
    const pending = await row(open);
    const page = await gateway.fetch(open.redirectUrl);
    const decided = await gateway.fetch(/action="([^"]+\/cancel)"/.exec(page.text)![1], { method: 'POST' });
    const inUrl = decided.headers.get('location')!;
    expect((await gateway.fetch(inUrl)).headers.get('location')).toBe(backToShop(open.orderId));

    const ended = await row(open);
    expect(ended).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'FAILURE', gatewayCode: 'CANCELLED', returnUrl: RETURN_URL });
    expect(ended.request).toEqual(keptRequest(pending.request as JsonObject));
    expect(await retrieveTransaction(open)).toMatchObject({ result: 'FAILURE', shipping: { contact: { lastName: 'Quux' } }, order: { custom: { colour: 'mauve' } } });
    const back = await gateway.fetch(inUrl);
    expect([back.status, back.headers.get('location')]).toEqual([303, backToShop(open.orderId)]);
  });

  it("waiting for the merchant's confirm: kept whole; the confirm merges into it and answers the payer's data; then kept without; its replay answers the same", async () => {
    const waiting = await approved(await initiated('CONFIRM_AT_MERCHANT'));
    const before = await row(waiting);
    expect(before).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING', returnUrl: RETURN_URL });
    expect(before.request).toMatchObject({
      customer: { email: 'zelda@example.org' },
      shipping: { contact: { lastName: 'Quux' } },
      order: { custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
      transaction: { merchantNote: 'called back' },
    });

    const confirm = { apiOperation: 'CONFIRM_BROWSER_PAYMENT', order: { customerNote: 'by the back door' } };
    const confirmed = await put(waiting.merchant, waiting.orderId, confirm);
    expect(confirmed.status).toBe(201);
    expect(confirmed.body).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'CAPTURED', totalCapturedAmount: 30, custom: { colour: 'mauve' }, customerNote: 'by the back door' },
      shipping: { address: { street: '10 Privet Drive' }, contact: { email: 'zelda@example.org' } },
      transaction: { merchantNote: 'called back' },
      browserPayment: { interaction: { status: 'COMPLETED' }, returnUrl: RETURN_URL },
    });
    // The order's details the ledger keeps are the confirmed request's, whole.
    const order = await gateway.fetch(`${waiting.merchant.base()}/order/${waiting.orderId}`, { headers: { authorization: waiting.merchant.authorization } });
    expect(order.body).toMatchObject({ customerNote: 'by the back door', custom: { colour: 'mauve' }, shipping: { contact: { lastName: 'Quux' } } });

    const ended = await row(waiting);
    expect(ended).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', returnUrl: RETURN_URL });
    expect(JSON.stringify(ended.request)).not.toMatch(PAYER_IN_REQUEST);
    const { customerNote: _n, ...initiatedOrder } = (before.request as JsonObject).order as JsonObject;
    expect(ended.request).toEqual(keptRequest({ ...(before.request as JsonObject), order: initiatedOrder }));

    const replay = await put(waiting.merchant, waiting.orderId, confirm);
    expect([replay.status, replay.body]).toEqual([201, confirmed.body]);
    expect(await row(waiting)).toEqual(ended);
  });
});

describe('payer-data erase (standalone: the ledger\'s and browser-payment\'s together)', () => {
  it('erases both on each order, refuses an order whose journey is not over whole, and reports one neither has', async () => {
    // Its webhook URL names the payer in its query: the ledger's order keeps it (2026-11-27).
    const notified = initiateBody();
    const hooks = 'https://merchant.example/hooks';
    notified.order = { ...(notified.order as JsonObject), notificationUrl: `${hooks}?customer=zelda-42` };
    const payment = await approved(await initiated(undefined, notified));
    const notificationUrl = async () =>
      (await ledger.query('SELECT notification_url AS url FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2', [payment.merchant.id, payment.orderId]))[0].url;
    expect(await notificationUrl()).toBe(`${hooks}?customer=zelda-42`);
    const open = await initiated();
    const ledgerOpenBefore = await ledger.query('SELECT xmin::text, details FROM order_transaction.orders WHERE order_id = $1', [open.orderId]);
    const { io, run } = captured();
    const erasure = bothErasures(new ErasePayerData(PayerDataRepository.over(ledger), logger), browserPaymentPayerDataErasure(payments, logger));
    const dry = captured();
    expect(await runPayerDataErase(['erase', payment.merchant.id, payment.orderId, '--dry-run', '--json'], STANDALONE_PAYER_DATA_ERASE, erasure, dry.io)).toBe(0);
    expect(JSON.parse(dry.run(0).out).orders).toEqual([
      { merchantId: payment.merchant.id, orderId: payment.orderId, status: 'WOULD_ERASE', details: true, notificationUrl: true, responses: 4, notifications: 0, agreements: 0, payments: 1, unfinished: 0 },
    ]);
    expect(await notificationUrl()).toBe(`${hooks}?customer=zelda-42`);
    const code = await runPayerDataErase(['erase', payment.merchant.id, payment.orderId, 'no-such-order'], STANDALONE_PAYER_DATA_ERASE, erasure, io);
    expect(run(code)).toEqual({
      code: 1,
      err: `error: ${payment.merchant.id}/no-such-order: the merchant has no such order: nothing changed`,
      out: [
        `Erased:\t${payment.merchant.id}/${payment.orderId}\torder details stripped, notification URL stripped, 4 stored responses, 0 notifications, 0 agreements, 1 browser payment`,
        'Orders: 1 erased, 0 with nothing to erase, 1 not found, 0 refused. Changed: 1 order details, 1 notification URL, 4 stored responses, 0 notifications, 0 agreements, 1 browser payment.',
      ].join('\n'),
    });
    expect(JSON.stringify(await retrieveTransaction(payment))).not.toMatch(/zelda|cart=7|payer@wallet/i);
    expect(await notificationUrl()).toBe(hooks);
    expect(JSON.stringify((await row(payment)).request)).not.toContain('zelda-42');

    const refused = captured();
    expect(await runPayerDataErase(['erase', open.merchant.id, open.orderId], STANDALONE_PAYER_DATA_ERASE, erasure, refused.io)).toBe(1);
    // The ledger's part of a refused order is left too.
    expect(await ledger.query('SELECT xmin::text, details FROM order_transaction.orders WHERE order_id = $1', [open.orderId])).toEqual(ledgerOpenBefore);
  });
});
