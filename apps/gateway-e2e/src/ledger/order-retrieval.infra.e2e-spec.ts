import { defaultMerchantSettings, JsonObject, RecordOperationMessage, SUBJECTS } from '@gateway/contracts';
import { GatewayNatsClient } from '@gateway/platform';
import { TEST_CARD, testInfra } from '@gateway/testing';
import { firstValueFrom } from 'rxjs';
import { servicesRequestHasher } from '../support/e2e-state';
import { call, createMerchant, readState } from '../support/gateway-client';

/**
 * Retrieval across processes in the distributed profile: an order is recorded in the ledger
 * over the run's NATS (as a service would, no operation performs one over HTTP yet), then read
 * back through the edge.
 */
describe('retrieving what the ledger recorded', () => {
  const client = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'e2e-ledger-seed', requestTimeoutMs: 5_000 });

  afterAll(async () => {
    await client.close();
  });

  it('returns the recorded order and transaction over HTTP, card number masked', async () => {
    const merchant = await createMerchant();
    const record: RecordOperationMessage = {
      envelope: {
        merchant: { id: merchant.id, mode: 'TEST', settings: defaultMerchantSettings() },
        apiVersion: 100,
        requestId: 'e2e-seed-1',
        authMethod: 'PASSWORD',
        fencingToken: '1',
      },
      orderId: 'order-1',
      transactionId: 'verify-1',
      apiOperation: 'VERIFY',
      requestHash: servicesRequestHasher().hash({ apiOperation: 'VERIFY' }),
      mode: 'CREATE',
      order: { currency: 'USD' },
      transaction: { type: 'VERIFICATION', amount: '0', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED' },
      // As a VERIFY through the test acquirer records it: what the spec always provides (the
      // card's brand, fundingMethod and scheme, transaction.acquirer) included.
      response: {
        sourceOfFunds: { type: 'CARD', provided: { card: { brand: 'MASTERCARD', fundingMethod: 'CREDIT', number: TEST_CARD, scheme: 'MASTERCARD' } } },
        transaction: { acquirer: { id: 'TEST_ACQUIRER' } },
      },
    };
    const subject = `${readState().natsPrefix}${SUBJECTS.orderTransaction.ledgerRecord}`;
    await firstValueFrom(client.send(subject, record));

    const order = await call<JsonObject>('GET', `${merchant.base()}/order/order-1`, { authorization: merchant.authorization });
    expect(order.status).toBe(200);
    expect(order.text).not.toContain(TEST_CARD);
    expect(order.body).toMatchObject({ id: 'order-1', status: 'VERIFIED', totalCapturedAmount: 0, result: 'SUCCESS' });

    const transaction = await call<JsonObject>('GET', `${merchant.base()}/order/order-1/transaction/verify-1`, {
      authorization: merchant.authorization,
    });
    expect(transaction.status).toBe(200);
    expect(transaction.body).toMatchObject({
      merchant: merchant.id,
      order: { id: 'order-1', status: 'VERIFIED' },
      transaction: { id: 'verify-1', type: 'VERIFICATION' },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
    });
  });
});
