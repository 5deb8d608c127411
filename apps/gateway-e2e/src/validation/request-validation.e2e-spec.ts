import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * Field validation in the running gateway (both profiles): a request with a bad field is
 * answered by the edge with the spec's error body, naming the field, whatever the services do.
 * Every field of every operation is covered by libs/edge/feature/src/http/request-validation.int-spec.ts.
 */
describe('request field validation', () => {
  let merchant: TestMerchant;
  const put = (path: string, body: unknown) => call('PUT', path, { body, authorization: merchant.authorization });
  const verify = (card: Record<string, unknown>) => ({
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card } },
  });

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  it('names an invalid expiry month with the value and the rule', async () => {
    const response = await put(`${merchant.base()}/order/v-1/transaction/t-1`, verify({ number: TEST_CARD, expiry: { month: '13', year: '39' } }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: "Value '13' is invalid. Month must be between 1 and 12.",
        field: 'sourceOfFunds.provided.card.expiry.month',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
  });

  it('rejects a card number past 19 digits without echoing it', async () => {
    const number = `${TEST_CARD}0000`;
    const response = await put(`${merchant.base()}/order/v-2/transaction/t-1`, verify({ number, expiry: { ...TEST_EXPIRY.APPROVED } }));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' } });
    expect(response.text).not.toContain(TEST_CARD);
  });

  it('reports a missing required field and an unknown one', async () => {
    const missing = await put(`${merchant.base(29)}/order/r-1/transaction/t-1`, { apiOperation: 'REFUND', transaction: { currency: 'USD' } });
    expect(missing.body).toMatchObject({ error: { field: 'transaction.amount', validationType: 'MISSING' } });
    const unknown = await put(`${merchant.base(29)}/order/r-1/transaction/t-1`, {
      apiOperation: 'REFUND',
      transaction: { amount: '1.00', currency: 'USD', item: [{ name: 'a', quantity: '1', unitPrice: '1.00', colour: 'red' }] },
    });
    expect(unknown.body).toMatchObject({ error: { field: 'transaction.item[0].colour', validationType: 'UNSUPPORTED' } });
  });

  it('rejects apiOperation on the token operation', async () => {
    const response = await put(`${merchant.base(57)}/token/9123456789012345`, {
      apiOperation: 'VERIFY',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD } } },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'apiOperation', validationType: 'UNSUPPORTED' } });
  });

  it('rejects item amounts that do not add up, to the thousandth', async () => {
    const response = await put(`${merchant.base(32)}/order/b-1/transaction/t-1`, {
      apiOperation: 'INITIATE_BROWSER_PAYMENT',
      browserPayment: { returnUrl: 'https://merchant.example/return' },
      order: { amount: '0.301', currency: 'BHD', itemAmount: '0.301', item: [{ name: 'tea', quantity: '3', unitPrice: '0.1' }] },
      sourceOfFunds: { type: 'PROVIDER_C' },
    });
    expect(response.body).toMatchObject({ error: { field: 'order.itemAmount', validationType: 'INVALID' } });
  });
});
