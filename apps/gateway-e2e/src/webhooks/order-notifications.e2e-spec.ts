import { randomBytes } from 'node:crypto';
import { verifyNotificationSignature } from '@gateway/contracts';
import { TEST_CARD, TEST_CARD_NUMBERS, TEST_EXPIRY, waitFor, WebhookReceiver } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';
import { startWebhookReceiver } from '../support/webhook-receivers';

/**
 * Webhook notifications from the running gateway (docs/webhooks.md): a merchant with
 * notifications enabled gets one signed notification per change of an order that named an
 * https notification URL, delivered by the dispatcher to a local HTTPS receiver whose
 * self-signed certificate the run trusts through WEBHOOK_CA_FILE.
 */
describe('order notifications', () => {
  let receiver: WebhookReceiver;
  let merchant: TestMerchant;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    merchant = await createMerchant({ 'notifications.enabled': true });
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  const verify = (who: TestMerchant, orderId: string, transactionId: string, order: Record<string, unknown> = {}) =>
    call('PUT', `${who.base()}/order/${orderId}/transaction/${transactionId}`, {
      authorization: who.authorization,
      body: {
        apiOperation: 'VERIFY',
        order: { currency: 'USD', ...order },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      },
    });

  const notificationsOf = (orderId: string) =>
    [...receiver.processed.values()].filter((n) => (JSON.parse(n.body) as { order: { id: string } }).order.id === orderId);

  it('sends one signed notification per change of the order, none for a replay', async () => {
    expect(merchant.notificationSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const orderId = `wh-${randomBytes(4).toString('hex')}`;
    const first = await verify(merchant, orderId, 't-1', { notificationUrl: receiver.url() });
    expect(first.status).toBe(201);
    await waitFor(async () => notificationsOf(orderId).length === 1, { timeoutMs: 20_000, what: 'the first notification' });

    // The order keeps its URL; a replay of t-1 changes nothing and announces nothing.
    expect((await verify(merchant, orderId, 't-2')).status).toBe(201);
    expect((await verify(merchant, orderId, 't-1', { notificationUrl: receiver.url() })).body).toEqual(first.body);
    expect((await verify(merchant, orderId, 't-3')).status).toBe(201);
    await waitFor(async () => notificationsOf(orderId).length >= 3, { timeoutMs: 20_000, what: 'three notifications' });

    const notifications = notificationsOf(orderId);
    const bodies = notifications.map((n) => JSON.parse(n.body));
    expect(bodies.map((b) => b.transaction.id).sort()).toEqual(['t-1', 't-2', 't-3']);
    for (const [i, notification] of notifications.entries()) {
      expect(notification.headers['x-notification-secret']).toBe(merchant.notificationSecret);
      expect(
        verifyNotificationSignature(notification.headers['x-notification-signature'], {
          secret: merchant.notificationSecret!,
          notificationId: notification.id,
          body: notification.body,
          nowSeconds: Math.floor(Date.now() / 1000),
          toleranceSeconds: 300,
        }),
      ).toBe(true);
      expect(bodies[i]).toMatchObject({
        merchant: merchant.id,
        order: { id: orderId, status: 'VERIFIED', currency: 'USD' },
        transaction: { type: 'VERIFICATION' },
        sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      });
      for (const pan of TEST_CARD_NUMBERS) {
        expect(notification.body).not.toContain(pan);
      }
    }
    expect(new Set(notifications.map((n) => n.id)).size).toBe(3);
  });

  it('sends nothing for a merchant whose notifications are off', async () => {
    const quiet = await createMerchant();
    const quietOrder = `quiet-${randomBytes(4).toString('hex')}`;
    expect((await verify(quiet, quietOrder, 't-1', { notificationUrl: receiver.url() })).status).toBe(201);
    // Written after the quiet one: once it has arrived, the quiet one would have too.
    const laterOrder = `later-${randomBytes(4).toString('hex')}`;
    expect((await verify(merchant, laterOrder, 't-1', { notificationUrl: receiver.url() })).status).toBe(201);
    await waitFor(async () => notificationsOf(laterOrder).length === 1, { timeoutMs: 20_000, what: 'the later notification' });
    expect(notificationsOf(quietOrder)).toEqual([]);
  });
});
