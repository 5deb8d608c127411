import { randomBytes } from 'node:crypto';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { FindReplayReply, JsonObject, OperationReply, OrderOperationMessage, SUBJECTS } from '@gateway/contracts';
import { MerchantRepository } from '@gateway/edge/data-access';
import { ManageMerchants, API_PASSWORD_PEPPERS } from '@gateway/edge/domain';
import { EdgeConfig, EdgeModule, edgeServerOptions } from '@gateway/edge/feature';
import {
  bootstrapApp,
  createLogger,
  createMessageServer,
  loadConfig,
  MessagingOptions,
  Metrics,
  PlatformModule,
  REDIS_CLIENT,
  RunningApp,
} from '@gateway/platform';
import { runKey, TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_NUMBERS, testInfra, waitFor } from '@gateway/testing';
import { TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';
import Redis from 'ioredis';

/**
 * Payment sessions through the edge's HTTP surface: the edge with its Redis session store (the
 * distributed profile's), the real token vault sealing session cards, and recording services in
 * place of verification and order-transaction's refund (VERIFY and REFUND are built on other
 * branches): they show what the edge hands a service for an operation that names a session.
 */
const PEPPER = 'int-test-pepper-0123456789abcdef0123456789';
const received: OrderOperationMessage[] = [];

@Controller()
class RecordingServices {
  @MessagePattern(SUBJECTS.orderTransaction.verify)
  verify(@Payload() message: OrderOperationMessage): OperationReply {
    received.push(message);
    return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
  }

  @MessagePattern(SUBJECTS.orderTransaction.refund)
  refund(@Payload() message: OrderOperationMessage): OperationReply {
    received.push(message);
    return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
  }

  @MessagePattern(SUBJECTS.orderTransaction.capture)
  capture(@Payload() message: OrderOperationMessage): OperationReply {
    received.push(message);
    return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
  }

  /** The ledger's answer to an operation naming a gone session: no stored response (none is recorded here). */
  @MessagePattern(SUBJECTS.orderTransaction.findReplay)
  findReplay(): FindReplayReply {
    return {};
  }
}

interface Gateway {
  running: RunningApp;
  manage: ManageMerchants;
}

const gateways: Gateway[] = [];

async function startGateway(edgeEnv: Record<string, string> = {}): Promise<Gateway> {
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const metrics = new Metrics();
  const common = {
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: '4',
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
  };
  // Redis for sessions, locks and throttling, as the distributed profile has them; the
  // services on the in-process bus of this one process.
  const edge = loadConfig(EdgeConfig, {
    ...common,
    GATEWAY_PROFILE: 'distributed',
    REDIS_URL: testInfra.redisUrl,
    REDIS_KEY_PREFIX: process.env.TEST_REDIS_PREFIX,
    API_PASSWORD_PEPPER: PEPPER,
    MERCHANT_CACHE_TTL_MS: '0',
    ...edgeEnv,
  });
  const vault = loadConfig(TokenVaultConfig, {
    ...common,
    GATEWAY_PROFILE: 'standalone',
    VAULT_MASTER_KEYS: `int-1:${runKey('master-1')}`,
    VAULT_FINGERPRINT_KEY: runKey('fingerprint'),
  });
  const messaging: MessagingOptions = { profile: 'standalone', servers: [], subjectPrefix: '', requestTimeoutMs: 5_000, serviceName: 'gateway' };
  @Module({
    imports: [PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 1_000 }), EdgeModule.forRoot(edge), TokenVaultModule.forRoot(vault)],
    controllers: [RecordingServices],
  })
  class SessionsTestModule {}
  const running = await bootstrapApp({
    module: SessionsTestModule,
    logger,
    host: '127.0.0.1',
    port: 0,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
    ...edgeServerOptions(edge, logger, metrics),
  });
  const redis = running.app.get<Redis>(REDIS_CLIENT);
  await waitFor(async () => redis.status === 'ready', { what: 'the edge\'s Redis connection' });
  const gateway = { running, manage: new ManageMerchants(running.app.get(MerchantRepository), running.app.get(API_PASSWORD_PEPPERS)) };
  gateways.push(gateway);
  return gateway;
}

let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.running.shutdown('tests done')));
});

interface Merchant {
  id: string;
  authorization: string;
  base: string;
}

async function newMerchant(on: Gateway = gateway): Promise<Merchant> {
  const id = `INTS${randomBytes(5).toString('hex').toUpperCase()}`;
  const issued = await on.manage.create({ id, name: 'Sessions test', mode: 'TEST' });
  return {
    id,
    authorization: `Basic ${Buffer.from(`merchant.${id}:${issued.password}`).toString('base64')}`,
    base: `/api/rest/version/100/merchant/${id}`,
  };
}

async function call(method: string, path: string, merchant: Merchant, body?: unknown, on: Gateway = gateway) {
  const response = await fetch(`${on.running.url}${path}`, {
    method,
    headers: { authorization: merchant.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as JsonObject & { session: { id: string; version: string; updateStatus: string } } };
}

const card = { number: TEST_CARD, expiry: { month: '1', year: '39' }, securityCode: '100' };

async function sessionWith(merchant: Merchant, ...updates: JsonObject[]) {
  const created = await call('POST', `${merchant.base}/session`, merchant);
  expect(created.status).toBe(201);
  let latest = created;
  for (const update of updates) {
    latest = await call('PUT', `${merchant.base}/session/${created.body.session.id}`, merchant, update);
    expect(latest.status).toBe(200);
  }
  return { id: created.body.session.id, version: latest.body.session.version, latest };
}

function verifyBody(extra: JsonObject = {}): JsonObject {
  return { apiOperation: 'VERIFY', ...extra };
}

const lastReceived = () => received[received.length - 1];

describe('the session resource', () => {
  it('creates an empty session: an id of 31 to 35 characters, a 10-character version, NO_UPDATE', async () => {
    const merchant = await newMerchant();
    const created = await call('POST', `${merchant.base}/session`, merchant);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      merchant: merchant.id,
      result: 'SUCCESS',
      session: { id: expect.stringMatching(/^[\x21-\x7e]{31,35}$/), updateStatus: 'NO_UPDATE', version: expect.stringMatching(/^[0-9a-f]{10}$/) },
      version: '100',
    });
    // Keys in alphabetical order, as every response.
    expect(created.text.indexOf('"merchant"')).toBeLessThan(created.text.indexOf('"session"'));
  });

  it('changes the version on every update, keeps what earlier updates gave, and shows the card masked', async () => {
    const merchant = await newMerchant();
    const created = await call('POST', `${merchant.base}/session`, merchant);
    const id = created.body.session.id;
    const first = await call('PUT', `${merchant.base}/session/${id}`, merchant, {
      order: { amount: '10.00', currency: 'USD' },
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
    });
    const second = await call('PUT', `${merchant.base}/session/${id}`, merchant, {
      customer: { firstName: 'Ada', lastName: 'Lovelace' },
      sourceOfFunds: { provided: { card: { securityCode: '100' } } },
      correlationId: 'corr-7',
    });
    expect([first.status, second.status]).toEqual([200, 200]);
    const versions = [created.body.session.version, first.body.session.version, second.body.session.version];
    expect(new Set(versions).size).toBe(3);
    expect(second.body.correlationId).toBe('corr-7');

    const retrieved = await call('GET', `${merchant.base}/session/${id}`, merchant);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toEqual({
      customer: { firstName: 'Ada', lastName: 'Lovelace' },
      merchant: merchant.id,
      order: { amount: 10, currency: 'USD' },
      result: 'SUCCESS',
      session: { id, updateStatus: 'SUCCESS', version: versions[2] },
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: expect.objectContaining({ number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } }) },
      },
      version: '100',
    });
    expect(retrieved.text).not.toContain(TEST_CARD);
    expect(retrieved.text).not.toContain('securityCode');
  });

  it('refuses an update carrying a version other than the current one (400 on session.version)', async () => {
    const merchant = await newMerchant();
    const { id, version } = await sessionWith(merchant, { order: { currency: 'USD' } });
    const stale = await call('PUT', `${merchant.base}/session/${id}`, merchant, { session: { version: '0123456789' }, order: { amount: '5.00' } });
    expect(stale.status).toBe(400);
    expect(stale.body.error).toMatchObject({ cause: 'INVALID_REQUEST', field: 'session.version', validationType: 'INVALID' });
    const current = await call('PUT', `${merchant.base}/session/${id}`, merchant, { session: { version }, order: { amount: '5.00' } });
    expect(current.status).toBe(200);
  });

  it("does not exist for another merchant: 404 on the resource, nothing shown", async () => {
    const owner = await newMerchant();
    const other = await newMerchant();
    const { id } = await sessionWith(owner, { order: { currency: 'USD' }, sourceOfFunds: { provided: { card } } });
    for (const [method, body] of [['GET', undefined], ['PUT', { order: { currency: 'EUR' } }]] as const) {
      const answer = await call(method, `${other.base}/session/${id}`, other, body);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: { cause: 'INVALID_REQUEST', explanation: expect.any(String) }, result: 'ERROR' });
    }
    expect((await call('GET', `${owner.base}/session/${id}`, owner)).body.order).toEqual({ currency: 'USD' });
  });

  it('refuses a card number failing Luhn when it is put in a session, created or updated, and keeps the session as it was', async () => {
    const merchant = await newMerchant();
    const luhnFailure = { ...card, number: TEST_CARD_LUHN_FAILURE };
    const created = await call('POST', `${merchant.base}/session`, merchant, { sourceOfFunds: { provided: { card: luhnFailure } } });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(created.text).not.toContain(TEST_CARD_LUHN_FAILURE);

    const { id, version } = await sessionWith(merchant, { sourceOfFunds: { provided: { card } } });
    const updated = await call('PUT', `${merchant.base}/session/${id}`, merchant, { sourceOfFunds: { provided: { card: { number: TEST_CARD_LUHN_FAILURE } } } });
    expect(updated.status).toBe(400);
    expect(updated.body.error).toMatchObject({ field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(updated.text).not.toContain(TEST_CARD_LUHN_FAILURE);
    // Refused at the update, not at use: the session still holds the card it had, at its version.
    const retrieved = await call('GET', `${merchant.base}/session/${id}`, merchant);
    expect(retrieved.body.session.version).toBe(version);
    expect(retrieved.body.sourceOfFunds).toMatchObject({ provided: { card: { number: '512345xxxxxx0008' } } });
  });

  it('refuses invalid values with the field named, and a malformed session id in the path', async () => {
    const merchant = await newMerchant();
    const { id } = await sessionWith(merchant);
    const bad = await call('PUT', `${merchant.base}/session/${id}`, merchant, { order: { currency: 'usd' } });
    expect(bad.body.error).toMatchObject({ field: 'order.currency', validationType: 'INVALID' });
    const unknown = await call('PUT', `${merchant.base}/session/${id}`, merchant, { apiOperation: 'VERIFY' });
    expect(unknown.body.error).toMatchObject({ field: 'apiOperation', validationType: 'UNSUPPORTED' });
    const badCard = await call('PUT', `${merchant.base}/session/${id}`, merchant, { sourceOfFunds: { provided: { card: { number: '12ab' } } } });
    expect(badCard.body.error).toMatchObject({ field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(badCard.text).not.toContain('12ab');
    const path = await call('GET', `${merchant.base}/session/short`, merchant);
    expect(path.status).toBe(400);
    expect(path.body.error).toMatchObject({ field: 'sessionid', validationType: 'INVALID' });
  });
});

describe('an operation naming a session', () => {
  it('is filled with the session\'s values for VERIFY, the request\'s own values winning, the card passed sealed', async () => {
    const merchant = await newMerchant();
    const { id, version } = await sessionWith(merchant, {
      order: { currency: 'EUR', amount: '12.00', reference: 'cart-1' },
      billing: { address: { city: 'Paris', country: 'FRA', street: '1 Rue de Rivoli' } },
      customer: { email: 'ada@example.com', firstName: 'Ada' },
      shipping: { method: 'OVERNIGHT' },
      sourceOfFunds: { provided: { card } },
    });
    const sealed = (await storedSession(id)).card.sealed;

    const response = await call('PUT', `${merchant.base}/order/o-${id.slice(-6)}/transaction/v1`, merchant, verifyBody({
      session: { id, version },
      order: { currency: 'USD' },
      customer: { firstName: 'Grace' },
      sourceOfFunds: { provided: { card: { securityCode: '102' } } },
    }));
    expect(response.status).toBe(201);
    const message = lastReceived();
    expect(message.body).toEqual({
      apiOperation: 'VERIFY',
      session: { id, version },
      // The request's currency wins; the session's reference fills in; VERIFY takes no order
      // amount: left out.
      order: { currency: 'USD', reference: 'cart-1' },
      billing: { address: { city: 'Paris', country: 'FRA', street: '1 Rue de Rivoli' } },
      customer: { email: 'ada@example.com', firstName: 'Grace' },
      shipping: { method: 'OVERNIGHT' },
      // Only the request's own card field: the session's card goes sealed.
      sourceOfFunds: { type: 'CARD', provided: { card: { securityCode: '102' } } },
    });
    expect(message.session).toEqual({ id, sealedCard: sealed });
    expect(JSON.stringify(message)).not.toContain(TEST_CARD);
  });

  it('is filled with the session\'s values for REFUND, the request overriding the amount', async () => {
    const merchant = await newMerchant();
    const { id } = await sessionWith(merchant, {
      transaction: { amount: '5.00', currency: 'USD', reference: 'refund-ref' },
      order: { reference: 'order-ref', description: 'not a refund field' },
    });
    const response = await call('PUT', `${merchant.base}/order/o-refund/transaction/r1`, merchant, {
      apiOperation: 'REFUND',
      session: { id },
      transaction: { amount: '2.50' },
    });
    expect(response.status).toBe(201);
    expect(lastReceived().body).toEqual({
      apiOperation: 'REFUND',
      session: { id },
      transaction: { amount: '2.50', currency: 'USD', reference: 'refund-ref' },
      order: { reference: 'order-ref' },
    });
    expect(lastReceived().session).toEqual({ id });
  });

  it('keeps the session\'s sealed card from an operation that takes no card details (CAPTURE)', async () => {
    const merchant = await newMerchant();
    const { id } = await sessionWith(merchant, { transaction: { amount: '5.00', currency: 'USD' }, sourceOfFunds: { provided: { card } } });
    expect((await storedSession(id)).card.sealed).toEqual(expect.any(String));
    const response = await call('PUT', `${merchant.base}/order/o-capture-card/transaction/c1`, merchant, { apiOperation: 'CAPTURE', session: { id } });
    expect(response.status).toBe(201);
    expect(lastReceived().session).toEqual({ id });
  });

  it('validates the filled request as a whole: a field the session gives must suit the operation', async () => {
    const merchant = await newMerchant();
    const { id } = await sessionWith(merchant, { transaction: { amount: '5.00', currency: 'JPY' } });
    const before = received.length;
    const response = await call('PUT', `${merchant.base}/order/o-jpy/transaction/r1`, merchant, {
      apiOperation: 'REFUND',
      session: { id },
      transaction: { amount: '2.50' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ field: 'transaction.amount', validationType: 'INVALID' });
    expect(received.length).toBe(before);
  });

  it('passes the session card with the token and the explicit fields, for the vault to complete explicit > session > token', async () => {
    const merchant = await newMerchant();
    const { id } = await sessionWith(merchant, { sourceOfFunds: { provided: { card: { expiry: { month: '1', year: '39' } } } } });
    await call('PUT', `${merchant.base}/order/o-prec/transaction/v1`, merchant, verifyBody({
      session: { id },
      order: { currency: 'USD' },
      sourceOfFunds: { token: '9123456789012346', provided: { card: { securityCode: '100' } } },
    }));
    const message = lastReceived();
    expect(message.body.sourceOfFunds).toEqual({ type: 'CARD', token: '9123456789012346', provided: { card: { securityCode: '100' } } });
    expect(message.session?.sealedCard).toEqual((await storedSession(id)).card.sealed);
  });

  it.each([
    ['a stale version', 'session.version'],
    ["another merchant's session", 'session.id'],
    ['an unknown session', 'session.id'],
  ])('is refused for %s (400 INVALID_REQUEST on %s), before any service is asked', async (what, field) => {
    const merchant = await newMerchant();
    const other = await newMerchant();
    const { id } = await sessionWith(merchant, { order: { currency: 'USD' } });
    const reference: JsonObject =
      what === 'a stale version'
        ? { id, version: 'ffffffffff' }
        : what === "another merchant's session"
          ? { id: (await sessionWith(other, { order: { currency: 'USD' } })).id }
          : { id: `SESSION0002${'Z'.repeat(21)}` };
    const before = received.length;
    const response = await call('PUT', `${merchant.base}/order/o-refused/transaction/v1`, merchant, verifyBody({
      session: reference,
      sourceOfFunds: { provided: { card } },
    }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: expect.any(String), field, validationType: 'INVALID' },
      result: 'ERROR',
    });
    expect(received.length).toBe(before);
  });
});

describe('an expired session', () => {
  it('is a clear 400 for operations and for the resource, and its card data is gone from Redis', async () => {
    const shortLived = await startGateway({ SESSION_TTL_MS: '120000' });
    const merchant = await newMerchant(shortLived);
    const created = await call('POST', `${merchant.base}/session`, merchant, { sourceOfFunds: { provided: { card } }, order: { currency: 'USD' } }, shortLived);
    const id = created.body.session.id;
    // The session's key lives the configured lifetime (the shortest allowed, 2 minutes), brought
    // forward here rather than waited for: Redis deletes it as it would then.
    await withRedis(async (redis) => {
      const key = `${process.env.TEST_REDIS_PREFIX}session:${id}`;
      const lifetime = await redis.pttl(key);
      expect(lifetime).toBeGreaterThan(100_000);
      expect(lifetime).toBeLessThanOrEqual(120_000);
      await redis.pexpire(key, 1);
    });
    await waitFor(async () => (await call('GET', `${merchant.base}/session/${id}`, merchant, undefined, shortLived)).status === 400, {
      timeoutMs: 10_000,
      what: 'the session to expire',
    });

    const retrieved = await call('GET', `${merchant.base}/session/${id}`, merchant, undefined, shortLived);
    expect(retrieved.body.error).toMatchObject({ cause: 'INVALID_REQUEST', field: 'sessionid', validationType: 'INVALID', explanation: expect.stringContaining('expired') });
    const operation = await call('PUT', `${merchant.base}/order/o-late/transaction/v1`, merchant, verifyBody({ session: { id } }), shortLived);
    expect(operation.status).toBe(400);
    expect(operation.body.error).toMatchObject({ field: 'session.id', validationType: 'INVALID', explanation: expect.stringContaining('expired') });
    expect(await redisValue(`session:${id}`)).toBeNull();
  });
});

describe('card data in Redis', () => {
  it('is never readable in clear: no key of the run holds a test card number', async () => {
    const merchant = await newMerchant();
    await sessionWith(merchant, { sourceOfFunds: { provided: { card } } }, { sourceOfFunds: { provided: { card: { nameOnCard: 'A Lovelace' } } } });
    const values = await everyValueOfTheRun();
    expect(values.some((v) => v.includes('SESSION0002'))).toBe(true);
    for (const pan of TEST_CARD_NUMBERS) {
      expect(values.filter((v) => v.includes(pan))).toEqual([]);
    }
    const stored = values.filter((v) => v.includes('"sealed"')).map((v) => JSON.parse(v));
    expect(stored.length).toBeGreaterThan(0);
    for (const session of stored) {
      expect(JSON.stringify(session.fields)).not.toMatch(/number|securityCode/);
    }
  });
});

async function withRedis<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(testInfra.redisUrl);
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

function redisValue(key: string): Promise<string | null> {
  return withRedis((redis) => redis.get(`${process.env.TEST_REDIS_PREFIX}${key}`));
}

async function storedSession(id: string) {
  return JSON.parse((await redisValue(`session:${id}`))!) as { card: { sealed: string } };
}

/** Every string value under this run's Redis prefix. */
async function everyValueOfTheRun(): Promise<string[]> {
  const redis = new Redis(testInfra.redisUrl);
  try {
    const values: string[] = [];
    for await (const keys of redis.scanStream({ match: `${process.env.TEST_REDIS_PREFIX}*`, count: 500 })) {
      for (const key of keys as string[]) {
        if ((await redis.type(key)) === 'string') {
          values.push((await redis.get(key)) ?? '');
        }
      }
    }
    return values;
  } finally {
    redis.disconnect();
  }
}
