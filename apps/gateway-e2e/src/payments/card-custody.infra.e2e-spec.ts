import { connect, NatsConnection, Subscription } from '@nats-io/transport-node';
import { SUBJECTS } from '@gateway/contracts';
import { TEST_CARD, TEST_CARD_NUMBERS, TEST_EXPIRY, testInfra, waitFor } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';
import { readState } from '../support/e2e-state';

jest.setTimeout(60_000);

interface Seen {
  subject: string;
  data: string;
}

/**
 * Card custody on the wire (ARCHITECTURE 6, docs/card-custody.md): while PAY runs with a stored
 * token and with a payment session, every message of this run on NATS is read, requests under
 * the run's subject prefix and the replies to them, and no test card number appears in any but
 * those to and from the token vault, which alone holds cards (and calls the acquirer connector
 * with them). order-transaction, which takes the payments, never sees a PAN.
 */
describe('PAN custody on NATS during token and session payments', () => {
  const state = readState();
  const prefix = state.natsPrefix!;
  let merchant: TestMerchant;
  let nats: NatsConnection;
  const requests: (Seen & { reply?: string })[] = [];
  const replies: Seen[] = [];
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    merchant = await createMerchant();
    nats = await connect({ servers: testInfra.natsUrl });
    const decoder = new TextDecoder();
    const capture = async (subscription: Subscription, into: (message: Seen & { reply?: string }) => void) => {
      for await (const message of subscription) {
        into({ subject: message.subject, data: decoder.decode(message.data), ...(message.reply ? { reply: message.reply } : {}) });
      }
    };
    const all = nats.subscribe(`${prefix}>`);
    // Replies travel on inboxes outside the prefix: kept when they answer one of this run's requests.
    const inboxes = nats.subscribe('_INBOX.>');
    subscriptions.push(all, inboxes);
    void capture(all, (m) => requests.push(m));
    void capture(inboxes, (m) => replies.push(m));
    await nats.flush();
  });

  afterAll(async () => {
    subscriptions.forEach((s) => s.unsubscribe());
    await nats?.close();
  });

  const put = (orderId: string, transactionId: string, body: object) =>
    call<Record<string, any>>('PUT', `${merchant.base()}/order/${orderId}/transaction/${transactionId}`, { authorization: merchant.authorization, body });

  it('shows the PAN only to the vault while PAY runs with a token and with a session', async () => {
    const token = await call<Record<string, any>>('POST', `${merchant.base()}/token`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } },
    });
    expect(token.status).toBe(201);
    const session = await call<Record<string, any>>('POST', `${merchant.base()}/session`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } } },
    });
    expect(session.status).toBe(201);

    const byToken = await put(`nats-t-${Date.now()}`, 'p1', { apiOperation: 'PAY', order: { amount: '5.00', currency: 'USD' }, sourceOfFunds: { token: token.body.token } });
    const sessionOrder = `nats-s-${Date.now()}`;
    const bySession = await put(sessionOrder, 'a1', { apiOperation: 'AUTHORIZE', session: { id: session.body.session.id }, order: { amount: '6.00', currency: 'USD' } });
    const captured = await put(sessionOrder, 'c1', { apiOperation: 'CAPTURE', transaction: { amount: '6.00', currency: 'USD' } });
    for (const response of [byToken, bySession, captured]) {
      expect(response.status).toBe(201);
      expect(response.body.result).toBe('SUCCESS');
    }

    const subject = (name: string) => `${prefix}${name}`;
    const ours = (name: string) => requests.filter((m) => m.subject === subject(name));
    // The inspector saw the traffic: both payments, the vault's acquirer calls and their replies.
    await waitFor(async () => ours(SUBJECTS.tokenVault.acquirerCall).length >= 2 && ours(SUBJECTS.orderTransaction.pay).length >= 1, {
      timeoutMs: 5_000,
      what: 'the payments on NATS',
    });
    expect(ours(SUBJECTS.orderTransaction.authorize)).toHaveLength(1);
    expect(ours(SUBJECTS.orderTransaction.capture)).toHaveLength(1);
    const answered = new Set(requests.map((m) => m.reply).filter(Boolean));
    await waitFor(async () => replies.filter((r) => answered.has(r.subject)).length >= requests.filter((m) => m.reply).length, {
      timeoutMs: 5_000,
      what: 'the replies on NATS',
    });
    // The card did cross NATS, to the vault (token create, session seal): the inspector would see it elsewhere too.
    const toVault = (m: Seen) => m.subject.startsWith(subject('token-vault.'));
    expect(requests.filter(toVault).some((m) => m.data.includes(TEST_CARD))).toBe(true);

    const vaultReplies = new Set(requests.filter(toVault).map((m) => m.reply));
    const elsewhere = [
      ...requests.filter((m) => !toVault(m)),
      ...replies.filter((r) => answered.has(r.subject) && !vaultReplies.has(r.subject)),
    ];
    expect(elsewhere.length).toBeGreaterThan(0);
    for (const pan of TEST_CARD_NUMBERS) {
      expect(elsewhere.filter((m) => m.data.includes(pan)).map((m) => m.subject)).toEqual([]);
    }
    // order-transaction's own calls to the vault carry no card either: the token and the sealed session card only.
    for (const call of ours(SUBJECTS.tokenVault.acquirerCall)) {
      expect(call.data).not.toContain(TEST_CARD);
    }
  });
});
