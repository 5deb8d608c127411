import { randomBytes } from 'node:crypto';
import { JsonObject, RecordOperationMessage, SUBJECTS } from '@gateway/contracts';
import { ManageMerchants, toMerchantContext } from '@gateway/edge/domain';
import { MessageBus, RunningApp } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testRequestHasher } from '@gateway/testing';
import { CARD_SERVICES, startTestGateway, TestGateway } from './testing/test-gateway';

/**
 * Refunds across services in one process, as the standalone profile wires them: the edge over
 * HTTP, order-transaction, and the token vault, which alone opens a stored card
 * (token-vault.acquirer.call.v1), with the run's vault keys (libs/testing vault-keys.ts). The
 * run's Postgres; captured orders are seeded through the ledger's record subject.
 */

let gateway: TestGateway;
let running: RunningApp;
let bus: MessageBus;
let manage: ManageMerchants;

beforeAll(async () => {
  gateway = await startTestGateway({
    ...CARD_SERVICES,
    merchantDefaults: { name: 'Refund test', idPrefix: 'INTF' },
  });
  ({ running, bus, manage } = gateway);
}, 60_000);

afterAll(async () => {
  await running?.shutdown('tests done');
});

interface Merchant {
  id: string;
  authorization: string;
  base: string;
}

async function newMerchant(): Promise<Merchant> {
  // A token repository of its own, as provisioning gives every merchant.
  const merchant = await gateway.newMerchant({ settings: { tokenRepository: { id: randomBytes(5).toString('hex') } } });
  return { id: merchant.id, authorization: merchant.authorization, base: merchant.base() };
}

async function http(method: string, path: string, merchant: Merchant, body?: unknown) {
  const response = await fetch(`${running.url}${path}`, {
    method,
    headers: { authorization: merchant.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as JsonObject };
}

async function storeToken(merchant: Merchant, expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED): Promise<string> {
  const created = await http('POST', `${merchant.base}/token`, merchant, { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry } } } });
  expect(created.status).toBe(201);
  return created.body.token as string;
}

const refundOf = (amount: string, extra: JsonObject = {}) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'USD' }, ...extra });

describe('standalone refunds to a token (the vault opens the card)', () => {
  it("refunds to the token's card: 201, a REFUNDED order, the card masked in the response and in retrieval", async () => {
    const merchant = await newMerchant();
    const token = await storeToken(merchant);
    const orderId = `ord-${randomBytes(4).toString('hex')}`;

    const refunded = await http('PUT', `${merchant.base}/order/${orderId}/transaction/r1`, merchant, refundOf('7.25', { sourceOfFunds: { token } }));
    expect(refunded.status).toBe(201);
    expect(refunded.text).not.toContain(TEST_CARD);
    expect(refunded.body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      order: { id: orderId, status: 'REFUNDED', totalRefundedAmount: 7.25 },
      transaction: { id: 'r1', type: 'REFUND', amount: 7.25, acquirer: { id: 'TEST_ACQUIRER' } },
      sourceOfFunds: { type: 'CARD', token, provided: { card: { number: '512345xxxxxx0008' } } },
    });

    const retrieved = await http('GET', `${merchant.base}/order/${orderId}`, merchant);
    expect(retrieved.status).toBe(200);
    expect(retrieved.text).not.toContain(TEST_CARD);
    expect(retrieved.body).toMatchObject({
      status: 'REFUNDED',
      totalRefundedAmount: 7.25,
      transaction: [{ transaction: { id: 'r1' }, sourceOfFunds: { token, provided: { card: { number: '512345xxxxxx0008' } } } }],
    });
  });

  it('lets explicit card values win over the token: an explicit declining expiry is declined', async () => {
    const merchant = await newMerchant();
    const token = await storeToken(merchant, TEST_EXPIRY.APPROVED);
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    const declined = await http(
      'PUT',
      `${merchant.base}/order/${orderId}/transaction/r1`,
      merchant,
      refundOf('1.00', { sourceOfFunds: { token, provided: { card: { expiry: TEST_EXPIRY.DECLINED } } } }),
    );
    expect(declined.status).toBe(201);
    expect(declined.body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' }, order: { status: 'FAILED' } });
  });

  it("answers the vault's 400 for a token it does not hold and records nothing, so the transaction id stays free", async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    const unknown = await http('PUT', `${merchant.base}/order/${orderId}/transaction/r1`, merchant, refundOf('1.00', { sourceOfFunds: { token: '9999999999999990' } }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'sourceOfFunds.token' } });
    expect((await http('GET', `${merchant.base}/order/${orderId}`, merchant)).status).toBe(404);

    const token = await storeToken(merchant);
    const retried = await http('PUT', `${merchant.base}/order/${orderId}/transaction/r1`, merchant, refundOf('1.00', { sourceOfFunds: { token } }));
    expect(retried.status).toBe(201);
    expect(retried.body.result).toBe('SUCCESS');
  });
});

describe('linked refunds over HTTP (order seeded through the ledger: card PAY is issue 9)', () => {
  it('refunds the payment and retrieval returns what the refund wrote, card masked', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    const record: RecordOperationMessage = {
      envelope: {
        merchant: toMerchantContext(await manage.show(merchant.id)),
        apiVersion: 100,
        requestId: 'seed-pay-1',
        authMethod: 'PASSWORD',
        fencingToken: '1',
      },
      orderId,
      transactionId: 'pay-1',
      apiOperation: 'PAY',
      requestHash: testRequestHasher().hash({ apiOperation: 'PAY' }),
      mode: 'CREATE',
      order: { currency: 'USD', details: { reference: 'cart-9' } },
      transaction: { type: 'PAYMENT', amount: '40.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
      response: {
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
        transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC0000010101' }, receipt: '0001120000' },
      },
    };
    await bus.request(SUBJECTS.orderTransaction.ledgerRecord, record);

    const refunded = await http('PUT', `${merchant.base}/order/${orderId}/transaction/r1`, merchant, refundOf('15.00', { order: { customerNote: 'late delivery' } }));
    expect(refunded.status).toBe(201);
    expect(refunded.body).toMatchObject({ result: 'SUCCESS', merchant: merchant.id, version: '100', order: { status: 'PARTIALLY_REFUNDED', customerNote: 'late delivery' } });

    const transaction = await http('GET', `${merchant.base}/order/${orderId}/transaction/r1`, merchant);
    expect(transaction.status).toBe(200);
    const { merchant: _m, version: _v, ...stored } = transaction.body;
    const { merchant: _m2, version: _v2, ...answered } = refunded.body;
    expect(stored).toEqual(answered);
    expect(transaction.text).not.toContain(TEST_CARD);
    expect(stored).toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });

    const order = await http('GET', `${merchant.base}/order/${orderId}`, merchant);
    expect(order.body).toMatchObject({ reference: 'cart-9', customerNote: 'late delivery', totalRefundedAmount: 15, totalCapturedAmount: 40 });
  });
});
