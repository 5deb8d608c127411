import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * order.notificationUrl at request time, in the running gateway: an http URL is refused for
 * everyone, a loopback or private address for a live merchant (server-side request forgery),
 * both with 400, error.field order.notificationUrl, validationType INVALID.
 */
describe('order.notificationUrl at request time', () => {
  let live: TestMerchant;
  let test: TestMerchant;

  beforeAll(async () => {
    live = await createMerchant({}, { mode: 'LIVE' });
    test = await createMerchant();
  });

  const verify = (merchant: TestMerchant, notificationUrl: string) =>
    call('PUT', `${merchant.base()}/order/url-${Date.now()}/transaction/t-1`, {
      authorization: merchant.authorization,
      body: {
        apiOperation: 'VERIFY',
        order: { currency: 'USD', notificationUrl },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      },
    });

  it('refuses an http URL for live and test merchants', async () => {
    for (const merchant of [live, test]) {
      const response = await verify(merchant, 'http://merchant.example/hooks');
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: { cause: 'INVALID_REQUEST', explanation: expect.any(String), field: 'order.notificationUrl', validationType: 'INVALID' },
        result: 'ERROR',
      });
    }
  });

  it.each(['https://127.0.0.1:8443/hooks', 'https://localhost/hooks', 'https://10.0.0.8/hooks', 'https://169.254.169.254/latest', 'https://[::1]/hooks'])(
    'refuses %s for a live merchant',
    async (url) => {
      const response = await verify(live, url);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: {
          cause: 'INVALID_REQUEST',
          explanation: expect.stringContaining('must be an https URL of a public address'),
          field: 'order.notificationUrl',
          validationType: 'INVALID',
        },
        result: 'ERROR',
      });
    },
  );
});
