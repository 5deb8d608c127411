import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BROWSER_PAYMENT_SCHEMA, BrowserPaymentRepository, SimulatedProviderRepository } from '@gateway/browser-payment/data-access';
import { BrowserPaymentLedger, RecordStep, SimulatedProvider } from '@gateway/browser-payment/domain';
import { ExpiredPaymentsReply, JsonObject, SettleExpiredPaymentMessage, SUBJECTS } from '@gateway/contracts';
import { Lease, LOCK_SERVICE, LockService } from '@gateway/locking';
import { dataSourceToken } from '@gateway/platform';
import { startBrowserPaymentGateway, TestGateway, TestGatewayMerchant } from './testing/test-gateway';

/**
 * Browser payment steps racing without the order lock, each reproduced deterministically (the
 * race test, browser-payment-races.int-spec.ts, found both).
 *
 * Two attempts at the completion of one approved CONFIRM_AT_PROVIDER payment (the payer's return,
 * and the payer reloading the return URL) without the order lock (the first attempt's lease
 * lapsed), with a merchant's record landing between them. Found by
 * browser-payment-races.int-spec.ts: the first attempt, its record refused for a stale fencing
 * token, reversed the execution at the provider while the second, which had found the payment
 * still due and the execution "already done", was about to record it: the ledger showed the
 * payment CAPTURED, the provider VOIDED. Now the attempts take the payment's execution lease
 * in turn (PaymentSteps.execute): the second executes nothing while the first holds it, and
 * once the first reversed, the provider declines the next attempt, which records that.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;
let lastFence = 0n;

beforeAll(async () => {
  gateway = await startBrowserPaymentGateway({ BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '0' });
  merchant = await gateway.newMerchant();
  // The order lock lost: every caller is granted it, each with a newer fencing token.
  jest.spyOn(gateway.running.app.get<LockService>(LOCK_SERVICE), 'acquire').mockImplementation(async (key): Promise<Lease> => {
    const now = BigInt(Date.now()) * 1000n;
    lastFence = now > lastFence ? now : lastFence + 1n;
    return { key, fencingToken: lastFence.toString(), release: async () => true, extend: async () => true };
  });
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

afterEach(() => {
  // The ledger and provider spies of a test, not the lock of all.
  const ledger = gateway.running.app.get(BrowserPaymentLedger, { strict: false });
  jest.spyOn(ledger, 'record').mockRestore();
  jest.spyOn(ledger, 'begin').mockRestore();
  jest.spyOn(SimulatedProvider.prototype, 'execute').mockRestore();
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const initiateBody = (paymentConfirmation = 'CONFIRM_AT_PROVIDER'): JsonObject => ({
  apiOperation: 'INITIATE_BROWSER_PAYMENT',
  browserPayment: { returnUrl: 'https://shop.example/return', provider_a: { operation: 'PAY', paymentConfirmation } },
  order: { amount: '30.00', currency: 'EUR' },
  sourceOfFunds: { type: 'PROVIDER_A' },
});

const put = (orderId: string, transactionId: string, body: JsonObject) =>
  gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/${transactionId}`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

it('two racing completions of one payment: the second waits its turn, so the ledger and the provider agree', async () => {
  const orderId = `bpvoid-${randomUUID().slice(0, 8)}`;
  const initiated = await put(orderId, 'bp-1', initiateBody());
  expect(initiated.status).toBe(201);
  const outUrl = String((initiated.body.browserPayment as JsonObject).redirectUrl);
  const inUrl = outUrl.replace('/out/', '/in/');
  expect((await gateway.fetch(outUrl)).status).toBe(200);
  expect((await gateway.fetch(`${outUrl}/approve`, { method: 'POST' })).status).toBe(303);

  // Hold the first COMPLETED record (inside its attempt) until told to go on.
  const ledger = gateway.running.app.get(BrowserPaymentLedger, { strict: false });
  const record = ledger.record.bind(ledger);
  const held = { entered: deferred(), release: deferred() };
  let completions = 0;
  jest.spyOn(ledger, 'record').mockImplementation(async (step: RecordStep) => {
    if (step.apiOperation === 'BROWSER_PAYMENT_COMPLETED' && completions++ === 0) {
      held.entered.resolve();
      await held.release.promise;
    }
    return record(step);
  });
  const executions: string[] = [];
  const execute = SimulatedProvider.prototype.execute;
  jest.spyOn(SimulatedProvider.prototype, 'execute').mockImplementation(async function (this: SimulatedProvider, ...args) {
    const result = await execute.apply(this, args);
    executions.push(result.providerCode);
    return result;
  });

  // A: the payer's return; executed, its COMPLETED record held.
  const returnA = gateway.fetch(inUrl);
  await held.entered.promise;
  // X: the merchant's second initiate on the order lands with a newer fencing token.
  expect((await put(orderId, 'bp-2', initiateBody())).body).toMatchObject({ result: 'PENDING' });
  // B: the payer reloads the return URL while A holds the execution: answered at once, nothing executed.
  const reload = await gateway.fetch(inUrl);
  expect(reload.status).not.toBe(303);
  expect(executions).toEqual(['EXECUTED']);
  // A's record goes on: refused (stale fence); A reverses its execution before it answers.
  held.release.resolve();
  expect((await returnA).status).toBe(503);
  // B again: its turn; the provider declines what it gave back, and that is what is recorded.
  expect((await gateway.fetch(inUrl)).status).toBe(303);
  expect(executions).toEqual(['EXECUTED', 'NOT_APPROVED_BY_PAYER']);

  const order = await gateway.fetch(`${merchant.base()}/order/${orderId}`, { headers: { authorization: merchant.authorization } });
  const transactions = order.body.transaction as JsonObject[];
  expect(transactions.find((t) => (t.transaction as JsonObject).id === 'bp-1')).toMatchObject({ result: 'FAILURE' });
  expect(order.body).toMatchObject({ totalCapturedAmount: 0 });
  const reference = String(((initiated.body.transaction as JsonObject).acquirer as JsonObject).transactionId);
  const atProvider = await gateway.running.app.get(SimulatedProviderRepository, { strict: false }).find(reference);
  expect({ status: atProvider?.status, captured: atProvider?.capturedAmount }).toEqual({ status: 'VOIDED', captured: '0.0000' });
}, 30_000);

/**
 * An INITIATE whose ledger record is refused for a stale fencing token is answered LOCK_FAILURE
 * ("nothing created, retry with the same id"), but its journey row was written before the record.
 * Once its token expired, the sweep found it due on every pass and every settlement failed (the
 * ledger has no transaction to time out). Now the settlement discards it, and the merchant's
 * retry under the same id initiates afresh.
 */
/**
 * On a new order, initiate bp-1, then bp-2 whose ledger record is held until bp-1's redirect
 * lands a newer fencing token on the order: bp-2 is answered LOCK_FAILURE, its journey row kept.
 */
async function orphanedInitiate(prefix: string): Promise<string> {
  const orderId = `${prefix}-${randomUUID().slice(0, 8)}`;
  const first = await put(orderId, 'bp-1', initiateBody());
  const outUrl = String((first.body.browserPayment as JsonObject).redirectUrl);

  const ledger = gateway.running.app.get(BrowserPaymentLedger, { strict: false });
  const record = ledger.record.bind(ledger);
  const entered = deferred();
  const release = deferred();
  jest.spyOn(ledger, 'record').mockImplementation(async (step: RecordStep) => {
    if (step.apiOperation === 'INITIATE_BROWSER_PAYMENT' && step.payment.transactionId === 'bp-2') {
      entered.resolve();
      await release.promise;
    }
    return record(step);
  });
  const second = put(orderId, 'bp-2', initiateBody());
  await entered.promise;
  expect((await gateway.fetch(outUrl)).status).toBe(200); // a newer fence lands on the order
  release.resolve();
  expect((await second).body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'LOCK_FAILURE' } });
  return orderId;
}

it('an initiate answered LOCK_FAILURE leaves nothing the sweep cannot settle, and its transaction id can be used again', async () => {
  const orderId = await orphanedInitiate('bporphan');
  const ledger = gateway.running.app.get(BrowserPaymentLedger, { strict: false });

  const payments = gateway.running.app.get(BrowserPaymentRepository, { strict: false });
  const orphan = (await payments.findByTransaction(merchant.id, orderId, 'bp-2'))!;
  expect(orphan).toMatchObject({ interactionStatus: 'INITIATED', result: 'PENDING' });
  const database = gateway.running.app.get<string, DataSource>(dataSourceToken(BROWSER_PAYMENT_SCHEMA.schema) as string, { strict: false });
  await database.query(`UPDATE browser_payment.payments SET token_expires_at = now() - interval '1 second' WHERE id = $1`, [orphan.id]);

  const due = await gateway.bus.request<ExpiredPaymentsReply>(SUBJECTS.browserPayment.expiredDue, { requestId: randomUUID(), limit: 1000 });
  expect(due.payments.map((p) => p.paymentId)).toContain(orphan.id);
  const settle: SettleExpiredPaymentMessage = {
    envelope: { merchant: merchant.context, apiVersion: 100, requestId: randomUUID(), authMethod: 'GATEWAY', fencingToken: String(BigInt(Date.now()) * 1000n + 999n) },
    paymentId: orphan.id,
  };
  expect(await gateway.bus.request(SUBJECTS.browserPayment.expiredSettle, settle)).toEqual({ outcome: 'DISCARDED' });
  expect(await payments.findByTransaction(merchant.id, orderId, 'bp-2')).toBeNull();

  jest.spyOn(ledger, 'record').mockRestore();
  expect((await put(orderId, 'bp-2', initiateBody())).body).toMatchObject({ result: 'PENDING', transaction: { id: 'bp-2' } });
}, 30_000);

/**
 * The same orphan, but the merchant, told LOCK_FAILURE created nothing, used its transaction id
 * for a card PAY. The sweep's time-out of the journey was recorded over that payment: the order
 * showed FAILED with nothing captured while the card was charged (found by review). The ledger
 * now refuses a step of the journey on a transaction the initiate did not create, and the
 * settlement discards the journey as it does when the id is unused.
 */
it('the sweep of an orphaned journey leaves a card PAY made under its transaction id as it was', async () => {
  const orderId = await orphanedInitiate('bpreuse');
  const paid = await put(orderId, 'bp-2', {
    apiOperation: 'PAY',
    order: { amount: '30.00', currency: 'EUR' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } },
  });
  expect(paid.body).toMatchObject({ result: 'SUCCESS', transaction: { id: 'bp-2', type: 'PAYMENT' } });

  const payments = gateway.running.app.get(BrowserPaymentRepository, { strict: false });
  const orphan = (await payments.findByTransaction(merchant.id, orderId, 'bp-2'))!;
  const database = gateway.running.app.get<string, DataSource>(dataSourceToken(BROWSER_PAYMENT_SCHEMA.schema) as string, { strict: false });
  await database.query(`UPDATE browser_payment.payments SET token_expires_at = now() - interval '1 second' WHERE id = $1`, [orphan.id]);
  const settle: SettleExpiredPaymentMessage = {
    envelope: { merchant: merchant.context, apiVersion: 100, requestId: randomUUID(), authMethod: 'GATEWAY', fencingToken: String(BigInt(Date.now()) * 1000n + 999n) },
    paymentId: orphan.id,
  };
  expect(await gateway.bus.request(SUBJECTS.browserPayment.expiredSettle, settle)).toEqual({ outcome: 'DISCARDED' });

  const order = await gateway.fetch(`${merchant.base()}/order/${orderId}`, { headers: { authorization: merchant.authorization } });
  const transactions = order.body.transaction as JsonObject[];
  expect(transactions.find((t) => (t.transaction as JsonObject).id === 'bp-2')).toMatchObject({
    result: 'SUCCESS',
    response: { gatewayCode: 'APPROVED' },
    sourceOfFunds: { type: 'CARD' },
  });
  expect(order.body).toMatchObject({ totalCapturedAmount: 30 });
}, 30_000);

/** A CONFIRM_AT_MERCHANT payment of 30.00 on a new order, approved by the payer, who came back. */
async function returnedToMerchant(prefix: string): Promise<{ orderId: string; providerReference: string }> {
  const orderId = `${prefix}-${randomUUID().slice(0, 8)}`;
  const initiated = await put(orderId, 'bp-1', initiateBody('CONFIRM_AT_MERCHANT'));
  expect(initiated.status).toBe(201);
  const outUrl = String((initiated.body.browserPayment as JsonObject).redirectUrl);
  expect((await gateway.fetch(outUrl)).status).toBe(200);
  expect((await gateway.fetch(`${outUrl}/approve`, { method: 'POST' })).status).toBe(303);
  expect((await gateway.fetch(outUrl.replace('/out/', '/in/'))).status).toBe(303);
  return { orderId, providerReference: String(((initiated.body.transaction as JsonObject).acquirer as JsonObject).transactionId) };
}

/**
 * A confirm whose ledger record landed while its own commit in browser-payment failed leaves the
 * payment looking due there. A second confirm with another body, begun before that record
 * landed, executed again (the provider answered the same execution), was refused by the ledger
 * as another request under the transaction id, and reversed: the ledger showed the payment
 * CAPTURED, the provider VOIDED. Now a refused attempt asks the ledger first, keeps what the
 * ledger records, and brings the payment up to date, so it can be refunded.
 */
it('a confirm refused because an earlier one is recorded keeps the capture, even when the earlier one\'s commit here failed', async () => {
  const { orderId, providerReference } = await returnedToMerchant('bpkeep');

  const ledger = gateway.running.app.get(BrowserPaymentLedger, { strict: false });
  const record = ledger.record.bind(ledger);
  const begin = ledger.begin.bind(ledger);
  const firstRecord = { entered: deferred(), release: deferred() };
  const firstDone = deferred();
  const secondBegun = deferred<string>();
  let firstEntered = false;
  jest.spyOn(ledger, 'record').mockImplementation(async (step: RecordStep) => {
    if (step.apiOperation !== 'CONFIRM_BROWSER_PAYMENT' || firstEntered) {
      return record(step);
    }
    firstEntered = true;
    firstRecord.entered.resolve();
    await firstRecord.release.promise;
    await record(step);
    // The record landed in the ledger; browser-payment's commit of the step fails after it.
    throw new Error('Connection terminated unexpectedly');
  });
  jest.spyOn(ledger, 'begin').mockImplementation(async (message) => {
    const begun = await begin(message);
    if (message.apiOperation === 'CONFIRM_BROWSER_PAYMENT' && firstEntered) {
      secondBegun.resolve(begun.outcome);
      await firstDone.promise; // the second confirm goes on once the first has answered
    }
    return begun;
  });

  const confirm = (reference: string) => put(orderId, 'bp-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT', transaction: { reference } });
  const first = confirm('first');
  await firstRecord.entered.promise;
  const second = confirm('second');
  expect(await secondBegun.promise).toBe('PROCEED'); // begun before the first's record landed
  firstRecord.release.resolve();
  expect((await first).status).toBeGreaterThanOrEqual(500);
  firstDone.resolve();
  const refused = await second;
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body)).toContain('already processed with different values');

  const atProvider = await gateway.running.app.get(SimulatedProviderRepository, { strict: false }).find(providerReference);
  expect({ status: atProvider?.status, captured: atProvider?.capturedAmount }).toEqual({ status: 'CAPTURED', captured: '30.0000' });
  const payment = await gateway.running.app.get(BrowserPaymentRepository, { strict: false }).findByTransaction(merchant.id, orderId, 'bp-1');
  expect(payment).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });

  // What the ledger shows can be refunded at the provider.
  const refund = await put(orderId, 'r-1', { apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'EUR', targetTransactionId: 'bp-1' } });
  expect(refund.body).toMatchObject({ result: 'SUCCESS', order: { totalCapturedAmount: 30, totalRefundedAmount: 10 } });
}, 30_000);

/**
 * The same lost commit, and then the merchant's next confirm, with the same body or another:
 * the ledger replays or refuses it, and the payment here, still RETURNED_TO_MERCHANT, used to
 * stay so for good (no refund at the provider possible: "did not complete"). Now the payment
 * catches up with the ledger's record on the replay or the refusal, and a refund finds it paid.
 */
describe.each([
  ['the same confirm, replayed', 'once', 201],
  ['another confirm, refused', 'twice', 400],
])('a confirm whose step here was lost, then %s', (_, nextReference, status) => {
  it('brings the payment up to what the ledger recorded, and it can be refunded', async () => {
    const { orderId, providerReference } = await returnedToMerchant('bpheal');

    const ledger = gateway.running.app.get(BrowserPaymentLedger, { strict: false });
    const record = ledger.record.bind(ledger);
    jest.spyOn(ledger, 'record').mockImplementationOnce(async (step: RecordStep) => {
      await record(step);
      throw new Error('Connection terminated unexpectedly');
    });
    const confirm = (ref: string) => put(orderId, 'bp-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT', transaction: { reference: ref } });
    expect((await confirm('once')).status).toBeGreaterThanOrEqual(500);
    const payments = gateway.running.app.get(BrowserPaymentRepository, { strict: false });
    expect(await payments.findByTransaction(merchant.id, orderId, 'bp-1')).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT' });

    const next = await confirm(nextReference);
    expect(next.status).toBe(status);
    expect(await payments.findByTransaction(merchant.id, orderId, 'bp-1')).toMatchObject({
      interactionStatus: 'COMPLETED',
      result: 'SUCCESS',
      amount: '30.0000',
      gatewayCode: 'APPROVED',
    });
    const refund = await put(orderId, 'r-1', { apiOperation: 'REFUND', transaction: { amount: '30.00', currency: 'EUR', targetTransactionId: 'bp-1' } });
    expect(refund.body).toMatchObject({ result: 'SUCCESS', order: { totalRefundedAmount: 30 } });
    const atProvider = await gateway.running.app.get(SimulatedProviderRepository, { strict: false }).find(providerReference);
    expect({ captured: atProvider?.capturedAmount, refunded: atProvider?.refundedAmount }).toEqual({ captured: '30.0000', refunded: '30.0000' });
  }, 30_000);
});
