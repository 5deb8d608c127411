import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/** The retrieval routes, through the running gateway in both profiles. */
describe('order retrieval over HTTP', () => {
  let merchant: TestMerchant;

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  it('answers 404 in the API error shape for an order the merchant does not have', async () => {
    const response = await call('GET', `${merchant.base()}/order/never-made`, { authorization: merchant.authorization });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: "No order 'never-made' was found for this merchant." },
      result: 'ERROR',
    });
  });

  it('answers 404 for a transaction of an unknown order', async () => {
    const response = await call('GET', `${merchant.base(57)}/order/never-made/transaction/t-1`, {
      authorization: merchant.authorization,
    });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
  });

  it('answers a method the order path does not serve with 405 and Allow: GET', async () => {
    const response = await call('DELETE', `${merchant.base()}/order/o-1`, { authorization: merchant.authorization });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});
