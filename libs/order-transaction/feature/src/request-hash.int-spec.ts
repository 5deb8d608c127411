import { createHash, createHmac, randomBytes } from 'node:crypto';
import { GatewayError, JsonObject, MerchantContext, OrderOperationMessage } from '@gateway/contracts';
import { canonicalJson } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testRequestHashKey } from '@gateway/testing';
import { LedgerTestApp, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';

/**
 * What the ledger keeps to recognise a replay (docs/decisions/keyed-request-hash.md): for a
 * request that carried a card number, expiry and security code, a hash a database copy cannot
 * test guesses against. Replays still answer the stored response.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

let fence = 3_000_000n;

function verify(merchant: MerchantContext, orderId: string, body: JsonObject): OrderOperationMessage {
  return {
    envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken: (fence += 1n).toString() },
    apiOperation: 'VERIFY',
    orderId,
    transactionId: 'verify-1',
    body,
  };
}

async function storedHash(merchant: MerchantContext, orderId: string): Promise<string> {
  const rows: { request_hash: string }[] = await app.dataSource.query(
    'SELECT request_hash FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2',
    [merchant.id, orderId],
  );
  expect(rows).toHaveLength(1);
  return rows[0].request_hash;
}

describe('the request hash of a VERIFY with an explicit card', () => {
  const body = (securityCode: string, correlationId: string): JsonObject => ({
    apiOperation: 'VERIFY',
    correlationId,
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode } } },
  });

  it('is stored keyed (HMAC-SHA256 under REQUEST_HASH_KEY), not as the plain sha256 of the body', async () => {
    const merchant = testMerchant();
    const orderId = `order-${randomBytes(5).toString('hex')}`;
    const sent = body('100', 'first');
    await app.operate(verify(merchant, orderId, sent));

    const { correlationId: _transient, ...rest } = sent;
    const canonical = canonicalJson(rest);
    const stored = await storedHash(merchant, orderId);
    expect(stored).not.toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(stored).toBe(createHmac('sha256', Buffer.from(testRequestHashKey(), 'base64')).update(canonical).digest('hex'));
  });

  it('still replays the stored response for the same body, and refuses the id with another security code', async () => {
    const merchant = testMerchant();
    const orderId = `order-${randomBytes(5).toString('hex')}`;
    const first = await app.operate(verify(merchant, orderId, body('100', 'first')));
    // A retry may carry another correlationId and another key order: still the same request.
    const { sourceOfFunds, order, ...others } = body('100', 'retry');
    const replayed = await app.operate(verify(merchant, orderId, { sourceOfFunds, ...others, order }));
    expect(replayed.body).toEqual(first.body);

    const other = await app.operate(verify(merchant, orderId, body('101', 'other'))).then(
      () => null,
      (err: unknown) => err,
    );
    expect(other).toBeInstanceOf(GatewayError);
    expect(other).toMatchObject({ code: 'INVALID_REQUEST' });
    expect((other as GatewayError).explanation).toMatch(/already processed with different values/);
  });
});
