import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OperationReply, OrderOperationMessage, SUBJECTS } from '@gateway/contracts';
import { TEST_CARD } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

const received: OrderOperationMessage[] = [];

/** Stands in for the verification service: records what the edge sends. */
@Controller()
class RecordingVerification {
  @MessagePattern(SUBJECTS.orderTransaction.verify)
  verify(@Payload() message: OrderOperationMessage): OperationReply {
    received.push(message);
    return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
  }
}

/** order.notificationUrl at request time: https only, and a public address for live merchants. */
describe('order.notificationUrl at the edge', () => {
  let edge: EdgeTestApp;
  let live: TestMerchantCredentials;
  let test: TestMerchantCredentials;

  beforeAll(async () => {
    edge = await startEdgeTestApp({ controllers: [RecordingVerification] });
    live = await edge.createMerchant({}, 'LIVE');
    test = await edge.createMerchant();
  });

  afterAll(async () => {
    await edge?.close();
  });

  const verify = (merchant: TestMerchantCredentials, notificationUrl: string, orderId = `o-${received.length}-${Date.now()}`) =>
    edge.fastify.inject({
      method: 'PUT',
      url: `/api/rest/version/100/merchant/${merchant.id}/order/${orderId}/transaction/t-1`,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({
        apiOperation: 'VERIFY',
        order: { currency: 'USD', notificationUrl },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
      }),
    });

  it('refuses an http URL (400 INVALID on order.notificationUrl), for every merchant', async () => {
    for (const merchant of [live, test]) {
      const response = await verify(merchant, 'http://merchant.example/hooks');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: {
          cause: 'INVALID_REQUEST',
          explanation: expect.stringContaining("Value 'http://merchant.example/hooks' is invalid."),
          field: 'order.notificationUrl',
          validationType: 'INVALID',
        },
        result: 'ERROR',
      });
    }
  });

  it.each([
    'https://127.0.0.1/hooks',
    'https://localhost:8443/hooks',
    'https://10.1.2.3/hooks',
    'https://192.168.0.10/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hooks',
    'https://2130706433/hooks',
  ])('refuses %s for a live merchant (400 INVALID on order.notificationUrl) before any service sees it', async (url) => {
    const before = received.length;
    const response = await verify(live, url);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      cause: 'INVALID_REQUEST',
      field: 'order.notificationUrl',
      validationType: 'INVALID',
      explanation: expect.stringContaining('must be an https URL of a public address'),
    });
    expect(received.length).toBe(before);
  });

  it('refuses another port than 443 for a live merchant: the dispatchers may reach no other', async () => {
    const before = received.length;
    const response = await verify(live, 'https://hooks.merchant.example:8443/gateway');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      field: 'order.notificationUrl',
      validationType: 'INVALID',
      explanation: expect.stringContaining('must use port 443'),
    });
    expect(received.length).toBe(before);
  });

  it('passes a public https URL for a live merchant, and a local receiver for a test merchant, to the service', async () => {
    expect((await verify(live, 'https://merchant.example:443/hooks')).statusCode).toBe(201);
    expect((await verify(live, 'https://merchant.example/hooks')).statusCode).toBe(201);
    expect(received.at(-1)?.body.order).toMatchObject({ notificationUrl: 'https://merchant.example/hooks' });
    expect((await verify(test, 'https://localhost:8443/hooks')).statusCode).toBe(201);
    expect(received.at(-1)?.body.order).toMatchObject({ notificationUrl: 'https://localhost:8443/hooks' });
  });
});
