import { randomBytes } from 'node:crypto';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { JsonObject, SUBJECTS } from '@gateway/contracts';
import { SESSION_STORE, SessionStore } from '@gateway/edge/data-access';
import { SecurityCodeInUse, UsedSecurityCodes } from '@gateway/edge/domain';
import { createLogger, GatewayNatsClient, MessageBus, Metrics, NotDeliveredError, standaloneBus, UnansweredError } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testInfra } from '@gateway/testing';
import { callAs, GatewayResponse, securityCodeCheck, startSessionGateway, TestGateway, TestGatewayMerchant } from './testing/test-gateway';

/**
 * An operation naming a payment session that the owning service refused unprocessed (here nobody
 * serves its subject: NoResponders) used no security code, so the edge gives back the code it
 * took for it (docs/decisions/security-code-used-once.md): the merchant's retry, which the 503
 * invites, carries it to the acquirer. The edge keeps sessions in the run's Redis, the token vault
 * seals their cards, and order-transaction runs VERIFY on the test acquirer (security code 100
 * answers MATCH, none NOT_PRESENT), driven over HTTP.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;

beforeAll(async () => {
  gateway = await startSessionGateway({ name: 'Session codes given back', idPrefix: 'INTGB' });
  merchant = await gateway.newMerchant();
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

function call(method: string, path: string, body?: JsonObject): Promise<GatewayResponse> {
  return callAs(gateway, merchant, method, path, body);
}

/**
 * Takes the subject's service away (its requests answered NoResponders, as on NATS when no
 * instance subscribes) and gives back the function that brings it back. The in-process bus keeps
 * its routes private: read here, in a test, to put the very same handler back.
 */
function withoutService(subject: string): () => void {
  const route = standaloneBus['routes'].get(subject);
  if (!route) {
    throw new Error(`nobody serves ${subject}`);
  }
  standaloneBus.unregister(subject);
  return () => standaloneBus.register(subject, route.dispatch, route.maxReplyBytes);
}

describe('an operation naming a session, refused unprocessed', () => {
  it('leaves the security code in the session: the retry once the service is back sends it to the acquirer, and uses it', async () => {
    const created = await call('POST', '/session', {
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '100' } } },
    });
    expect(created.status).toBe(201);
    const sessionId = String((created.body.session as JsonObject).id);
    const verify = { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const orderId = `gb-${Date.now()}`;

    const bringBack = withoutService(SUBJECTS.orderTransaction.verify);
    let refused: GatewayResponse;
    try {
      refused = await call('PUT', `/order/${orderId}/transaction/t1`, verify);
    } finally {
      bringBack();
    }
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { cause: 'SERVER_BUSY' }, result: 'ERROR' });

    // The merchant retries, as the 503 invites: the payer's code reaches the acquirer.
    const retried = await call('PUT', `/order/${orderId}/transaction/t1`, verify);
    expect(retried.status).toBe(201);
    expect(securityCodeCheck(retried)).toBe('MATCH');

    // That operation used it: the next goes without.
    const next = await call('PUT', `/order/${orderId}-next/transaction/t1`, verify);
    expect(next.status).toBe(201);
    expect(securityCodeCheck(next)).toBe('NOT_PRESENT');
  });
});

/**
 * The same on real NATS, where the edge's client can refuse to send: a request on a draining or
 * closed connection never leaves the process (nats.js checks before it queues anything), so the
 * code goes back; a request published and never answered may have reached the acquirer, so the
 * code stays used. The operation's send is made here with the edge's own UsedSecurityCodes, over
 * a NATS client of the test's, to a subject of the run's own; the code's fate is then read by a
 * VERIFY over HTTP.
 */
describe('an operation naming a session, sent over NATS', () => {
  const subjectPrefix = `t${randomBytes(6).toString('hex')}.`;
  let service: NatsConnection;

  beforeAll(async () => {
    service = await connect({ servers: testInfra.natsUrl });
    service.subscribe(`${subjectPrefix}never-answers.v1`, { callback: () => undefined });
    await service.flush();
  });

  afterAll(async () => {
    await service?.close();
  });

  /** A session with the payer's card and security code 100, as the edge's store holds it. */
  async function sessionWithCode(): Promise<{ sessionId: string; inUse: SecurityCodeInUse }> {
    const created = await call('POST', '/session', {
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '100' } } },
    });
    expect(created.status).toBe(201);
    const sessionId = String((created.body.session as JsonObject).id);
    const found = await gateway.running.app.get<SessionStore>(SESSION_STORE).find(merchant.id, sessionId);
    if (found.state !== 'ACTIVE' || !found.session.card) {
      throw new Error(`session ${sessionId} has no card`);
    }
    return { sessionId, inUse: { session: { ...found.session, card: found.session.card } } };
  }

  /**
   * Takes the session's code for an operation, as the edge does right before the send, then (after
   * `beforeSend`) sends it over `client`: the refusal it ends with.
   */
  async function sendTaking(inUse: SecurityCodeInUse, client: GatewayNatsClient, beforeSend: () => void = () => undefined): Promise<unknown> {
    const usedSecurityCodes = gateway.running.app.get(UsedSecurityCodes);
    const context = { merchant: merchant.context, authMethod: 'PASSWORD' as const, apiVersion: 100, requestId: randomBytes(8).toString('hex') };
    const bus = new MessageBus(
      client,
      { profile: 'distributed', servers: [testInfra.natsUrl], subjectPrefix, requestTimeoutMs: 300, serviceName: 'api-edge' },
      createLogger({ service: 'api-edge', level: 'silent' }),
      new Metrics(),
    );
    const taken = await usedSecurityCodes.take(context, inUse, bus.deadline());
    expect(taken.taken).toBeDefined();
    beforeSend();
    return usedSecurityCodes.sending(taken, () => bus.request('never-answers.v1', {})).then(
      () => 'answered',
      (err: unknown) => err,
    );
  }

  async function nextVerifyCheck(sessionId: string): Promise<unknown> {
    const verify = { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const answered = await call('PUT', `/order/gb-nats-${randomBytes(6).toString('hex')}/transaction/t1`, verify);
    expect(answered.status).toBe(201);
    return securityCodeCheck(answered);
  }

  it('gives the code back when the connection was draining: nothing was sent', async () => {
    const { sessionId, inUse } = await sessionWithCode();
    const client = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'edge-test', requestTimeoutMs: 300 });
    const connection = (await client.connect()) as unknown as NatsConnection;
    let drained: Promise<void> | undefined;
    try {
      await expect(sendTaking(inUse, client, () => (drained = connection.drain()))).resolves.toBeInstanceOf(NotDeliveredError);
    } finally {
      await drained;
      await client.close();
    }

    expect(await nextVerifyCheck(sessionId)).toBe('MATCH');
    expect(await nextVerifyCheck(sessionId)).toBe('NOT_PRESENT');
  });

  it('keeps the code used when the request was published and never answered: the service may have had it', async () => {
    const { sessionId, inUse } = await sessionWithCode();
    const client = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'edge-test', requestTimeoutMs: 300 });
    try {
      await expect(sendTaking(inUse, client)).resolves.toBeInstanceOf(UnansweredError);
    } finally {
      await client.close();
    }

    expect(await nextVerifyCheck(sessionId)).toBe('NOT_PRESENT');
  });
});
