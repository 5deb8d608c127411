import { JsonObject, ORDER_OPERATION_SUBJECTS } from '@gateway/contracts';
import { standaloneBus } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/**
 * The mistakes a developer makes in a first integration, answered through the HTTP edge with
 * an explanation that says what to change (the full answer is pinned, not only the field), and
 * never passed on to a service.
 */
const card = (fields: JsonObject) => ({ type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, ...fields } } });
const VERIFY = { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: card({}) };
const AUTHORIZE = { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: card({}) };

describe('the mistakes of a first integration, explained', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;
  const received: unknown[] = [];

  beforeAll(async () => {
    for (const subject of Object.values(ORDER_OPERATION_SUBJECTS)) {
      standaloneBus.register(subject, async (data) => {
        received.push(data);
        return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
      });
    }
    edge = await startEdgeTestApp();
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    for (const subject of Object.values(ORDER_OPERATION_SUBJECTS)) standaloneBus.unregister(subject);
    await edge?.close();
  });

  beforeEach(() => {
    received.length = 0;
  });

  const transactionPath = () => `/api/rest/version/100/merchant/${merchant.id}/order/o-1/transaction/t-1`;

  async function call(method: 'PUT' | 'POST', url: string, body: unknown) {
    const response = await edge.fastify.inject({
      method,
      url,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    return { status: response.statusCode, allow: response.headers.allow, body: JSON.parse(response.body) as JsonObject, text: response.body };
  }

  /** The 400 of a field problem, exactly, and no service called. */
  async function expectFieldProblem(body: unknown, error: { explanation: string; field: string; validationType: string }) {
    const response = await call('PUT', transactionPath(), body);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: { error: { cause: 'INVALID_REQUEST', ...error }, result: 'ERROR' },
    });
    expect(received).toEqual([]);
    return response;
  }

  it('says an expiry year is its last two digits when the full year is sent', async () => {
    await expectFieldProblem(
      { ...VERIFY, sourceOfFunds: card({ expiry: { month: '1', year: '2039' } }) },
      {
        explanation: "Value '2039' is invalid. Year must be the last 2 digits of the year: '39' for 2039.",
        field: 'sourceOfFunds.provided.card.expiry.year',
        validationType: 'INVALID',
      },
    );
  });

  it('says what an expiry object holds when the expiry is sent as text', async () => {
    for (const expiry of ['1/2039', '0139']) {
      await expectFieldProblem(
        { ...VERIFY, sourceOfFunds: card({ expiry }) },
        {
          explanation: 'Value is invalid. expiry must be a JSON object with month and year.',
          field: 'sourceOfFunds.provided.card.expiry',
          validationType: 'INVALID',
        },
      );
    }
  });

  it('says a card number goes without spaces or dashes, never echoing it', async () => {
    for (const number of ['5123 4500 0000 0008', '5123-4500-0000-0008']) {
      const response = await expectFieldProblem(
        { ...VERIFY, sourceOfFunds: card({ number }) },
        {
          explanation: 'Value is invalid. Card number must be 9 to 19 characters from 0-9, without spaces or dashes.',
          field: 'sourceOfFunds.provided.card.number',
          validationType: 'INVALID',
        },
      );
      expect(response.text).not.toContain(number);
    }
  });

  it('calls a JSON number a number, and a null no number', async () => {
    await expectFieldProblem(
      { ...AUTHORIZE, order: { amount: 10.5, currency: 'USD' } },
      {
        explanation: "Value '10.5' is invalid. amount must be a JSON string holding a decimal number, not a number.",
        field: 'order.amount',
        validationType: 'INVALID',
      },
    );
    await expectFieldProblem(
      { ...AUTHORIZE, order: { amount: null, currency: 'USD' } },
      { explanation: "Value 'null' is invalid. amount must be a JSON string holding a decimal number.", field: 'order.amount', validationType: 'INVALID' },
    );
    await expectFieldProblem(
      { ...VERIFY, sourceOfFunds: card({ expiry: { month: null, year: '39' } }) },
      {
        explanation: "Value 'null' is invalid. Month must be a JSON string of digits.",
        field: 'sourceOfFunds.provided.card.expiry.month',
        validationType: 'INVALID',
      },
    );
  });

  it('says a JPY amount is a whole number', async () => {
    await expectFieldProblem(
      { ...AUTHORIZE, order: { amount: '10.50', currency: 'JPY' } },
      { explanation: "Value '10.50' is invalid. amount must be a whole number for JPY, which has no minor unit.", field: 'order.amount', validationType: 'INVALID' },
    );
  });

  it('names what a missing group must hold: the void target, the verify currency, the refund amount', async () => {
    await expectFieldProblem(
      { apiOperation: 'VOID' },
      { explanation: 'Missing parameter transaction. It must hold transaction.targetTransactionId.', field: 'transaction', validationType: 'MISSING' },
    );
    await expectFieldProblem(
      { apiOperation: 'VERIFY', sourceOfFunds: card({}) },
      { explanation: 'Missing parameter order. It must hold order.currency.', field: 'order', validationType: 'MISSING' },
    );
    await expectFieldProblem(
      { apiOperation: 'REFUND' },
      { explanation: 'Missing parameter transaction. It must hold transaction.amount and transaction.currency.', field: 'transaction', validationType: 'MISSING' },
    );
  });

  it('names the methods a path takes when another is used, in the body as in Allow', async () => {
    const post = await call('POST', transactionPath(), VERIFY);
    expect({ status: post.status, allow: post.allow, body: post.body }).toEqual({
      status: 405,
      allow: 'GET, PUT',
      body: { error: { cause: 'INVALID_REQUEST', explanation: 'Method POST is not supported on this resource. Use GET or PUT.' }, result: 'ERROR' },
    });
    const onToken = await call('POST', `/api/rest/version/57/merchant/${merchant.id}/token/t1`, {});
    expect(onToken.body).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: 'Method POST is not supported on this resource. Use PUT, GET or DELETE.' },
      result: 'ERROR',
    });
    expect(received).toEqual([]);
  });

  it("names a '/' at the end of an operation's path, and only there", async () => {
    const slash = await call('PUT', `${transactionPath()}/`, VERIFY);
    expect({ status: slash.status, body: slash.body }).toEqual({
      status: 404,
      body: { error: { cause: 'INVALID_REQUEST', explanation: "No such resource. Remove the '/' at the end of the path." }, result: 'ERROR' },
    });
    const unknown = await call('PUT', `/api/rest/version/100/merchant/${merchant.id}/orders/o-1/transaction/t-1/`, VERIFY);
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 404,
      body: { error: { cause: 'INVALID_REQUEST', explanation: 'No such resource.' }, result: 'ERROR' },
    });
    expect(received).toEqual([]);
  });
});
