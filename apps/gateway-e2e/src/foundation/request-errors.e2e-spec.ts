import { call, createMerchant, TestMerchant } from '../support/gateway-client';

describe('requests the gateway cannot process', () => {
  let merchant: TestMerchant;
  const put = (path: string, options: { body?: unknown; rawBody?: string } = {}) =>
    call('PUT', path, { ...options, authorization: merchant.authorization });

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  it('answers unparsable JSON with 400 INVALID_REQUEST and no field', async () => {
    const response = await put(`${merchant.base()}/order/o-1/transaction/t-1`, { rawBody: '{"apiOperation":' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: 'The request body is not valid JSON: unexpected end of the body at character 17.' },
      result: 'ERROR',
    });
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const response = await put(`${merchant.base()}/order/o-1/transaction/t-1`, { rawBody: '[1,2]' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
  });

  it('rejects a 41-character order id naming the path identifier', async () => {
    const response = await put(`${merchant.base()}/order/${'o'.repeat(41)}/transaction/t-1`, { body: { apiOperation: 'VERIFY' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: expect.stringMatching(/^Value 'o{41}' is invalid\./),
        field: 'orderid',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
  });

  it('accepts a 40-character order id as far as the path goes', async () => {
    const response = await put(`${merchant.base()}/order/${'o'.repeat(40)}/transaction/t-1`, { rawBody: '{' });
    expect(response.body).toMatchObject({ error: { explanation: expect.stringMatching(/^The request body is not valid JSON: /) } });
  });

  it('rejects a 41-character transaction id', async () => {
    const response = await put(`${merchant.base()}/order/o-1/transaction/${'t'.repeat(41)}`, { body: { apiOperation: 'VERIFY' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'transactionid', validationType: 'INVALID' } });
  });

  it('rejects a merchant id with a forbidden character', async () => {
    const response = await put(`/api/rest/version/100/merchant/${merchant.id}%24/order/o-1/transaction/t-1`, {
      body: { apiOperation: 'VERIFY' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: { cause: 'INVALID_REQUEST', field: 'merchantId', validationType: 'INVALID' },
      result: 'ERROR',
    });
  });

  it.each([28, 101])('rejects API version %d', async (version) => {
    const response = await put(`${merchant.base(version)}/order/o-1/transaction/t-1`, { body: { apiOperation: 'VERIFY' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'version', validationType: 'INVALID' } });
  });

  it('checks the path before the body', async () => {
    const response = await put(`${merchant.base(28)}/order/o-1/transaction/t-1`, { rawBody: '{' });
    expect(response.body).toMatchObject({ error: { field: 'version' } });
  });

  it('rejects an unknown apiOperation', async () => {
    const response = await put(`${merchant.base()}/order/o-1/transaction/t-1`, { body: { apiOperation: 'EXPLODE' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: expect.stringContaining("Value 'EXPLODE' is invalid."),
        field: 'apiOperation',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
  });

  it('reports a missing apiOperation as MISSING', async () => {
    const response = await put(`${merchant.base()}/order/o-1/transaction/t-1`, { body: {} });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'apiOperation', validationType: 'MISSING' } });
  });

  it('answers an unknown path with 404 in the error shape', async () => {
    const response = await call('GET', '/api/rest/version/100/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const response = await call('POST', `${merchant.base()}/order/o-1/transaction/t-1`, {
      body: {},
      authorization: merchant.authorization,
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('PUT');
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
  });

  it('sends a request id with every response', async () => {
    const response = await put(`${merchant.base()}/order/o-1/transaction/t-1`, { rawBody: '{' });
    expect(response.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9-]{1,64}$/);
  });
});
