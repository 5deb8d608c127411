import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { JsonObject, SUBJECTS } from '@gateway/contracts';
import { MerchantRepository } from '@gateway/edge/data-access';
import { ManageMerchants, API_PASSWORD_PEPPERS } from '@gateway/edge/domain';
import { EdgeConfig, EdgeModule, edgeServerOptions } from '@gateway/edge/feature';
import { bootstrapApp, createLogger, createMessageServer, loadConfig, MessagingOptions, Metrics, PlatformModule, RunningApp, standaloneBus } from '@gateway/platform';
import { createTestPki, IssuedCertificate, runKey, TEST_CARD, TEST_EXPIRY, TestPki } from '@gateway/testing';
import { TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';

/**
 * `responseControls.sensitiveData=UNMASK` through the edge's HTTP surface with the real vault
 * (docs/decisions/unmasking.md): certificates made at test time by a test CA, presented through
 * the trusted proxy's header. Permission plus certificate shows the full number where one is
 * held; password authentication, or a certificate without the permission, is a 400 on the field
 * and never a full number.
 */
const PEPPER = 'int-unmask-pepper-0123456789abcdef0123456789';
const PROXY = '10.0.0.9';
const FIELD = 'responseControls.sensitiveData';

let pki: TestPki;
let running: RunningApp;
let fastify: FastifyInstance;
let certificate: IssuedCertificate;
let otherCertificate: IssuedCertificate;
const retrievals: JsonObject[] = [];
/** What reached the browser-payment service (stood in for below). */
const browserPayments: JsonObject[] = [];

interface Merchant {
  id: string;
  authorization: string;
  certificate: IssuedCertificate;
}
let allowed: Merchant;
let notAllowed: Merchant;

async function newMerchant(manage: ManageMerchants, cert: IssuedCertificate, unmask: boolean): Promise<Merchant> {
  const id = `INTU${randomBytes(5).toString('hex').toUpperCase()}`;
  const issued = await manage.create({
    id,
    name: 'Unmask test',
    mode: 'TEST',
    settings: { privileges: { unmask }, clientCertificates: { fingerprints: [cert.fingerprint] }, tokenRepository: { generation: 'MERCHANT_SUPPLIED' } },
  });
  return { id, authorization: `Basic ${Buffer.from(`merchant.${id}:${issued.password}`).toString('base64')}`, certificate: cert };
}

async function call(method: 'GET' | 'PUT' | 'POST', path: string, merchant: Merchant, auth: 'CERTIFICATE' | 'PASSWORD', body?: unknown) {
  const response = await fastify.inject({
    method,
    url: `/api/rest/version/100/merchant/${merchant.id}${path}`,
    remoteAddress: PROXY,
    headers: {
      ...(auth === 'CERTIFICATE' ? { 'ssl-client-cert': encodeURIComponent(merchant.certificate.cert) } : { authorization: merchant.authorization }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, text: response.body, body: response.json() as JsonObject };
}

const UNMASK = `?${FIELD}=UNMASK`;
const cardBody = (extra: JsonObject = {}) => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
  ...extra,
});
const numberOf = (body: JsonObject) => (((body.sourceOfFunds as JsonObject)?.provided as JsonObject)?.card as JsonObject)?.number;

/** The 400 every refused UNMASK gets, with no full number anywhere in it. */
function expectRefused(answer: { status: number; text: string; body: JsonObject }) {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: FIELD, validationType: 'INVALID' } });
  expect(answer.text).not.toContain(TEST_CARD);
}

beforeAll(async () => {
  pki = createTestPki();
  certificate = pki.issue('unmask-a', { subject: '/O=Unmask A/CN=unmask-a.example' });
  otherCertificate = pki.issue('unmask-b', { subject: '/O=Unmask B/CN=unmask-b.example' });
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const metrics = new Metrics();
  const common = { DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_POOL_SIZE: '4', HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', GATEWAY_PROFILE: 'standalone' };
  const edge = loadConfig(EdgeConfig, {
    ...common,
    API_PASSWORD_PEPPER: PEPPER,
    MERCHANT_CACHE_TTL_MS: '0',
    TLS_CERT_FILE: pki.server.certFile,
    TLS_KEY_FILE: pki.server.keyFile,
    TLS_CLIENT_CA_FILE: pki.caFile,
    TLS_CLIENT_CERT: 'request',
    CLIENT_CERT_HEADER: 'ssl-client-cert',
    TRUSTED_PROXIES: PROXY,
  });
  const vault = loadConfig(TokenVaultConfig, { ...common, VAULT_MASTER_KEYS: `int-1:${runKey('master-1')}`, VAULT_FINGERPRINT_KEY: runKey('fingerprint') });
  const messaging: MessagingOptions = { profile: 'standalone', servers: [], subjectPrefix: '', requestTimeoutMs: 5_000, serviceName: 'gateway' };
  @Module({ imports: [PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 1_000 }), EdgeModule.forRoot(edge), TokenVaultModule.forRoot(vault)] })
  class UnmaskTestModule {}
  running = await bootstrapApp({
    module: UnmaskTestModule,
    logger,
    host: '127.0.0.1',
    port: 0,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
    ...edgeServerOptions(edge, logger, metrics),
  });
  fastify = (running.app as NestFastifyApplication).getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // The ledger (order-transaction) stands in with what it holds: a masked card.
  standaloneBus.register(SUBJECTS.orderTransaction.retrieveOrder, async (message) => {
    retrievals.push(message as JsonObject);
    return { body: { result: 'SUCCESS', id: 'o-1', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } } };
  });
  // browser-payment stands in too: a provider_c payment, its account as the provider reported it (masked).
  for (const subject of [SUBJECTS.browserPayment.initiate, SUBJECTS.browserPayment.confirm]) {
    standaloneBus.register(subject, async (message) => {
      browserPayments.push(message as JsonObject);
      return {
        body: {
          order: { id: 'o-bp', amount: 10, currency: 'EUR', status: 'INITIATED', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 },
          response: { gatewayCode: 'SUBMITTED' },
          result: 'PENDING',
          sourceOfFunds: { provided: { provider_c: { iban: 'xxxxxxxxxxxxxxxxxx3000' } }, type: 'PROVIDER_C' },
          transaction: { id: 'bp-1', type: 'PAYMENT', amount: 10, currency: 'EUR' },
        },
      };
    });
  }
  const manage = new ManageMerchants(running.app.get(MerchantRepository), running.app.get(API_PASSWORD_PEPPERS));
  allowed = await newMerchant(manage, certificate, true);
  notAllowed = await newMerchant(manage, otherCertificate, false);
}, 60_000);

afterAll(async () => {
  standaloneBus.unregister(SUBJECTS.orderTransaction.retrieveOrder);
  standaloneBus.unregister(SUBJECTS.browserPayment.initiate);
  standaloneBus.unregister(SUBJECTS.browserPayment.confirm);
  await running?.shutdown('tests done');
  pki?.remove();
});

describe('UNMASK: permission and certificate authentication, or a 400', () => {
  describe('token (PUT and GET)', () => {
    it('shows the full number to a permitted merchant authenticated by certificate', async () => {
      const put = await call('PUT', '/token/UNMASKPUT1', allowed, 'CERTIFICATE', cardBody({ responseControls: { sensitiveData: 'UNMASK' } }));
      expect(put.status).toBe(201);
      expect(numberOf(put.body)).toBe(TEST_CARD);

      const get = await call('GET', `/token/UNMASKPUT1${UNMASK}`, allowed, 'CERTIFICATE');
      expect(get.status).toBe(200);
      expect(numberOf(get.body)).toBe(TEST_CARD);
      // Without UNMASK the same request shows the masked number.
      expect(numberOf((await call('GET', '/token/UNMASKPUT1', allowed, 'CERTIFICATE')).body)).toBe('512345xxxxxx0008');
    });

    it('refuses UNMASK with password authentication, even with the permission', async () => {
      expectRefused(await call('PUT', '/token/UNMASKPW1', allowed, 'PASSWORD', cardBody({ responseControls: { sensitiveData: 'UNMASK' } })));
      await call('PUT', '/token/UNMASKPW2', allowed, 'PASSWORD', cardBody());
      expectRefused(await call('GET', `/token/UNMASKPW2${UNMASK}`, allowed, 'PASSWORD'));
    });

    it('refuses UNMASK with a certificate when the merchant lacks the permission', async () => {
      expectRefused(await call('PUT', '/token/UNMASKNP1', notAllowed, 'CERTIFICATE', cardBody({ responseControls: { sensitiveData: 'UNMASK' } })));
      await call('PUT', '/token/UNMASKNP2', notAllowed, 'CERTIFICATE', cardBody());
      expectRefused(await call('GET', `/token/UNMASKNP2${UNMASK}`, notAllowed, 'CERTIFICATE'));
    });
  });

  describe('session (GET): the vault opens the sealed card only for a permitted UNMASK', () => {
    async function sessionOf(merchant: Merchant): Promise<string> {
      const created = await call('POST', '/session', merchant, 'PASSWORD', {});
      const id = (created.body.session as JsonObject).id as string;
      const updated = await call('PUT', `/session/${id}`, merchant, 'PASSWORD', cardBody());
      expect(updated.status).toBe(200);
      return id;
    }

    it('shows the full number with the permission and a certificate, the masked one otherwise', async () => {
      const id = await sessionOf(allowed);
      const withCode = await call('PUT', `/session/${id}`, allowed, 'PASSWORD', { sourceOfFunds: { provided: { card: { securityCode: '100' } } } });
      expect(withCode.status).toBe(200);
      const answer = await call('GET', `/session/${id}${UNMASK}`, allowed, 'CERTIFICATE');
      expect(answer.status).toBe(200);
      expect(numberOf(answer.body)).toBe(TEST_CARD);
      // The security code is never shown, unmasked or not.
      expect((((answer.body.sourceOfFunds as JsonObject).provided as JsonObject).card as JsonObject).securityCode).not.toBe('100');
      expect(numberOf((await call('GET', `/session/${id}`, allowed, 'CERTIFICATE')).body)).toBe('512345xxxxxx0008');
    });

    it('refuses UNMASK with password authentication or without the permission', async () => {
      expectRefused(await call('GET', `/session/${await sessionOf(allowed)}${UNMASK}`, allowed, 'PASSWORD'));
      expectRefused(await call('GET', `/session/${await sessionOf(notAllowed)}${UNMASK}`, notAllowed, 'CERTIFICATE'));
    });
  });

  describe('retrieval (GET order): the ledger holds masked cards only', () => {
    it('accepts a permitted UNMASK, and refuses the others before asking the ledger', async () => {
      retrievals.length = 0;
      const answer = await call('GET', `/order/o-1${UNMASK}`, allowed, 'CERTIFICATE');
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(TEST_CARD);
      expect(retrievals).toHaveLength(1);

      expectRefused(await call('GET', `/order/o-1${UNMASK}`, allowed, 'PASSWORD'));
      expectRefused(await call('GET', `/order/o-1/transaction/t-1${UNMASK}`, notAllowed, 'CERTIFICATE'));
      expect(retrievals).toHaveLength(1);
    });
  });

  describe('browser payments (PUT): refused at the edge, before the order is locked or the service asked', () => {
    const initiate = {
      apiOperation: 'INITIATE_BROWSER_PAYMENT',
      browserPayment: { returnUrl: 'https://merchant.example/return' },
      order: { amount: '10.00', currency: 'EUR' },
      sourceOfFunds: { type: 'PROVIDER_C' },
      responseControls: { sensitiveData: 'UNMASK' },
    };
    const confirm = { apiOperation: 'CONFIRM_BROWSER_PAYMENT', responseControls: { sensitiveData: 'UNMASK' } };

    it('refuses UNMASK with password authentication, or a certificate without the permission', async () => {
      browserPayments.length = 0;
      expectRefused(await call('PUT', '/order/o-bp/transaction/bp-1', allowed, 'PASSWORD', initiate));
      expectRefused(await call('PUT', '/order/o-bp/transaction/bp-1', notAllowed, 'CERTIFICATE', initiate));
      expectRefused(await call('PUT', '/order/o-bp/transaction/bp-1', allowed, 'PASSWORD', confirm));
      expectRefused(await call('PUT', '/order/o-bp/transaction/bp-1', notAllowed, 'CERTIFICATE', confirm));
      expect(browserPayments).toHaveLength(0);
    });

    it('sends a permitted UNMASK on; the account stays as the provider reported it, masked (the gateway holds no more)', async () => {
      browserPayments.length = 0;
      const answer = await call('PUT', '/order/o-bp/transaction/bp-1', allowed, 'CERTIFICATE', initiate);
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ sourceOfFunds: { provided: { provider_c: { iban: 'xxxxxxxxxxxxxxxxxx3000' } } } });
      expect(browserPayments).toEqual([expect.objectContaining({ body: expect.objectContaining({ responseControls: { sensitiveData: 'UNMASK' } }) })]);
    });
  });

  it('refuses query parameters other than responseControls.sensitiveData on a GET', async () => {
    const answer = await call('GET', '/token/UNMASKPUT1?responseControls.sensitiveData=UNMASK&x=1', allowed, 'CERTIFICATE');
    expect(answer.status).toBe(400);
    expect(answer.text).not.toContain(TEST_CARD);
  });
});
