import { admin, basic, call, createMerchant, TestMerchant } from '../support/gateway-client';

const INVALID_CREDENTIALS = { error: { cause: 'INVALID_REQUEST', explanation: 'Invalid credentials.' }, result: 'ERROR' };
const verify = { apiOperation: 'VERIFY' };

describe('merchant authentication', () => {
  let merchant: TestMerchant;
  let other: TestMerchant;

  beforeAll(async () => {
    [merchant, other] = await Promise.all([createMerchant(), createMerchant()]);
  });

  const expectChallenge = (response: { status: number; headers: Headers; text: string }) => {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"/);
    expect(response.text).toBe(JSON.stringify(INVALID_CREDENTIALS));
  };

  it('challenges a request without credentials with 401 and WWW-Authenticate: Basic', async () => {
    expectChallenge(await call('PUT', `${merchant.base()}/order/o-1/transaction/t-1`, { body: verify }));
  });

  it('answers a wrong password with the same 401', async () => {
    expectChallenge(
      await call('PUT', `${merchant.base()}/order/o-1/transaction/t-1`, {
        body: verify,
        authorization: basic(`merchant.${merchant.id}`, `${merchant.password}0`),
      }),
    );
  });

  it('answers an unknown merchant with the same 401', async () => {
    expectChallenge(
      await call('PUT', '/api/rest/version/100/merchant/NOSUCHMERCHANT/order/o-1/transaction/t-1', {
        body: verify,
        authorization: basic('merchant.NOSUCHMERCHANT', merchant.password),
      }),
    );
  });

  it('answers credentials of another merchant than the path names with the same 401', async () => {
    expectChallenge(
      await call('PUT', `${merchant.base()}/order/o-1/transaction/t-1`, { body: verify, authorization: other.authorization }),
    );
  });

  it('answers a user that is not merchant.<id> with the same 401', async () => {
    expectChallenge(
      await call('PUT', `${merchant.base()}/order/o-1/transaction/t-1`, {
        body: verify,
        authorization: basic(merchant.id, merchant.password),
      }),
    );
  });

  it('checks credentials before anything else, even an unparsable body', async () => {
    expectChallenge(await call('PUT', `${merchant.base()}/order/o-1/transaction/t-1`, { rawBody: '{not json' }));
  });

  it('refuses a disabled merchant with 403 REQUEST_REJECTED and a support code', async () => {
    const disabled = await createMerchant();
    await admin(['disable', disabled.id]);
    const response = await call('PUT', `${disabled.base()}/order/o-1/transaction/t-1`, {
      body: verify,
      authorization: disabled.authorization,
    });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: { cause: 'REQUEST_REJECTED', supportCode: expect.stringMatching(/^[0-9A-F]{12}$/) },
      result: 'ERROR',
    });
  });

  it('accepts the previous password during a rotation and only the new one after a revoking rotation', async () => {
    const rotating = await createMerchant();
    const url = `${rotating.base()}/order/o-1/transaction/t-1`;
    const rotated = (await admin(['rotate-password', rotating.id, '--keep-previous-hours', '1'])) as { apiPassword: string };
    for (const password of [rotating.password, rotated.apiPassword]) {
      const response = await call('PUT', url, {
        rawBody: '{not json',
        authorization: basic(`merchant.${rotating.id}`, password),
      });
      expect(response.status).toBe(400);
    }
    const revoked = (await admin(['rotate-password', rotating.id, '--keep-previous-hours', '0'])) as { apiPassword: string };
    expectChallenge(await call('PUT', url, { body: verify, authorization: basic(`merchant.${rotating.id}`, rotated.apiPassword) }));
    const ok = await call('PUT', url, { rawBody: '{', authorization: basic(`merchant.${rotating.id}`, revoked.apiPassword) });
    expect(ok.status).toBe(400);
  });
});
