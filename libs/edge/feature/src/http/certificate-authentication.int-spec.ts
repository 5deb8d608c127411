import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { JsonObject, SUBJECTS } from '@gateway/contracts';
import { createLogger, standaloneBus } from '@gateway/platform';
import { createTestPki, IssuedCertificate, logLinesInto, TEST_CARD, TEST_EXPIRY, TestPki } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/**
 * Certificate authentication (issue 10, item 1) with a CA, server and client certificates
 * made at test time: over real mutual TLS, and through the certificate header of a trusted
 * proxy. What the service receives shows how the request was authenticated.
 */
const PROXY = '10.0.0.7';
const VERIFY = JSON.stringify({
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
});
const DAY = 86_400_000;

interface Answer {
  status: number;
  body: JsonObject;
}

describe('certificate authentication', () => {
  let pki: TestPki;
  const certs: Record<string, IssuedCertificate> = {};
  const logLines: Record<string, unknown>[] = [];
  const authMethods: string[] = [];
  const merchantSettings: Record<string, unknown>[] = [];
  let edge: EdgeTestApp;
  let merchantA: TestMerchantCredentials;
  let merchantB: TestMerchantCredentials;
  let bySubject: TestMerchantCredentials;

  beforeAll(async () => {
    pki = createTestPki();
    certs.a = pki.issue('a', { subject: '/O=Shop A/CN=shop-a.example' });
    certs.b = pki.issue('b', { subject: '/O=Shop B/CN=shop-b.example' });
    certs.subject = pki.issue('subject', { subject: '/O=Shop S, Inc./CN=shop-s.example' });
    certs.revoked = pki.issue('revoked', { subject: '/O=Shop S, Inc./CN=shop-s.example' });
    certs.expired = pki.issue('expired', { subject: '/CN=shop-a.example', notBefore: new Date(Date.now() - 60 * DAY), notAfter: new Date(Date.now() - DAY) });
    certs.future = pki.issue('future', { subject: '/CN=shop-a.example', notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 60 * DAY) });
    // Current certificates from trusted intermediates whose own validity ended or has not begun.
    certs.expiredCa = pki.issue('expired-ca', { subject: '/CN=shop-a.example', issuer: 'expiredCa' });
    certs.futureCa = pki.issue('future-ca', { subject: '/CN=shop-a.example', issuer: 'futureCa' });
    certs.untrusted = pki.issue('untrusted', { subject: '/CN=shop-a.example', issuer: 'untrusted' });
    certs.self = pki.issue('self', { subject: '/CN=shop-a.example', issuer: 'self' });
    certs.forged = pki.issue('forged', { subject: '/CN=shop-a.example', issuer: 'impostor' });
    certs.serverOnly = pki.issue('server-only', { subject: '/CN=shop-a.example', usage: 'serverAuth' });
    certs.unregistered = pki.issue('unregistered', { subject: '/CN=nobody.example' });

    standaloneBus.register(SUBJECTS.orderTransaction.verify, async (data) => {
      const envelope = (data as { envelope: { authMethod: string; merchant: { settings: Record<string, unknown> } } }).envelope;
      authMethods.push(envelope.authMethod);
      merchantSettings.push(envelope.merchant.settings);
      return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
    });
    const sink = logLinesInto(logLines);
    edge = await startEdgeTestApp({
      logger: createLogger({ service: 'api-edge', level: 'info', destination: sink }),
      env: {
        TLS_CERT_FILE: pki.server.certFile,
        TLS_KEY_FILE: pki.server.keyFile,
        TLS_CLIENT_CA_FILE: pki.caFile,
        TLS_CLIENT_CERT: 'request',
        CLIENT_CERT_HEADER: 'ssl-client-cert',
        TRUSTED_PROXIES: PROXY,
      },
    });
    const every = (...names: string[]) => names.map((n) => certs[n].fingerprint);
    merchantA = await edge.createMerchant({ clientCertificates: { fingerprints: every('a', 'expired', 'future', 'expiredCa', 'futureCa', 'untrusted', 'self', 'forged', 'serverOnly') } });
    merchantB = await edge.createMerchant({ clientCertificates: { fingerprints: every('b') } });
    bySubject = await edge.createMerchant({
      clientCertificates: { subjects: [certs.subject.subject], revokedFingerprints: every('revoked') },
    });
  });

  afterAll(async () => {
    standaloneBus.unregister(SUBJECTS.orderTransaction.verify);
    await edge?.close();
    pki?.remove();
  });

  beforeEach(() => {
    authMethods.length = 0;
  });

  const orderPath = (merchant: TestMerchantCredentials) => `/api/rest/version/100/merchant/${merchant.id}/order/o-1/transaction/t-1`;

  /** A PUT over TLS to the edge, presenting `certificate` if given; a fresh connection each time. */
  function overTls(path: string, options: { certificate?: IssuedCertificate; authorization?: string; app?: EdgeTestApp } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = httpsRequest(
        `${(options.app ?? edge).running.url}${path}`,
        {
          method: 'PUT',
          agent: false,
          // The client checks the edge's certificate too: it comes from the test CA.
          ca: readFileSync(pki.caFile, 'utf8'),
          cert: options.certificate?.cert,
          key: options.certificate?.key,
          headers: { 'content-type': 'application/json', ...(options.authorization ? { authorization: options.authorization } : {}) },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
        },
      );
      request.on('error', reject);
      request.end(VERIFY);
    });
  }

  /** Through the trusted proxy (or pretending to be it, from `from`). */
  async function throughProxy(path: string, header: string, options: { from?: string; authorization?: string } = {}): Promise<Answer> {
    const response = await edge.fastify.inject({
      method: 'PUT',
      url: path,
      remoteAddress: options.from ?? PROXY,
      headers: {
        'content-type': 'application/json',
        'ssl-client-cert': header,
        ...(options.authorization ? { authorization: options.authorization } : {}),
      },
      payload: VERIFY,
    });
    return { status: response.statusCode, body: response.json() };
  }

  const asHeader = (certificate: IssuedCertificate) => encodeURIComponent(certificate.cert);

  /** 403 with a support code, and the log line with that code says why. */
  function expectRefused(answer: Answer, reason: string, merchantId: string) {
    expect(answer).toEqual({
      status: 403,
      body: { error: { cause: 'REQUEST_REJECTED', supportCode: expect.stringMatching(/^[0-9A-F]{12}$/) }, result: 'ERROR' },
    });
    const supportCode = (answer.body.error as JsonObject).supportCode;
    expect(logLines.find((line) => line.supportCode === supportCode)).toMatchObject({
      level: 'warn',
      msg: 'client certificate refused',
      reason,
      merchantId,
    });
    expect(authMethods).toEqual([]);
  }

  describe('over mutual TLS', () => {
    it('authenticates a registered certificate without a password, as CERTIFICATE', async () => {
      expect((await overTls(orderPath(merchantA), { certificate: certs.a })).status).toBe(201);
      expect(authMethods).toEqual(['CERTIFICATE']);
      // Registrations stay at the edge: services need none of them.
      expect(merchantSettings.at(-1)).not.toHaveProperty('clientCertificates');
      expect(merchantSettings.at(-1)).toHaveProperty('tokenRepository');
    });

    it('authenticates a certificate registered by its subject', async () => {
      expect((await overTls(orderPath(bySubject), { certificate: certs.subject })).status).toBe(201);
      expect(authMethods).toEqual(['CERTIFICATE']);
    });

    it('still takes a password alone (TLS_CLIENT_CERT=request), as PASSWORD', async () => {
      expect((await overTls(orderPath(merchantA), { authorization: merchantA.authorization })).status).toBe(201);
      expect(authMethods).toEqual(['PASSWORD']);
    });

    it('challenges a request with neither', async () => {
      expect((await overTls(orderPath(merchantA))).status).toBe(401);
    });

    it.each([
      ['expired', 'EXPIRED'],
      ['future', 'NOT_YET_VALID'],
      // A certificate is valid no longer than the CA that issued it.
      ['expiredCa', 'EXPIRED'],
      ['futureCa', 'NOT_YET_VALID'],
      ['untrusted', 'UNTRUSTED'],
      ['self', 'UNTRUSTED'],
      // The trusted CA's name and key identifier, another CA's signature.
      ['forged', 'UNTRUSTED'],
      ['serverOnly', 'NOT_FOR_CLIENT_AUTHENTICATION'],
    ])('refuses the %s certificate with 403 and a support code, though the merchant registered it', async (name, reason) => {
      expectRefused(await overTls(orderPath(merchantA), { certificate: certs[name] }), reason, merchantA.id);
    });

    it('refuses a revoked certificate even though its subject is registered', async () => {
      expectRefused(await overTls(orderPath(bySubject), { certificate: certs.revoked }), 'REVOKED', bySubject.id);
    });

    it('refuses a trusted certificate no merchant registered', async () => {
      expectRefused(await overTls(orderPath(merchantA), { certificate: certs.unregistered }), 'UNREGISTERED', merchantA.id);
    });

    it("refuses merchant A's certificate on merchant B's path", async () => {
      expectRefused(await overTls(orderPath(merchantB), { certificate: certs.a }), 'UNREGISTERED', merchantB.id);
    });

    it("refuses a bad certificate even with the merchant's right password", async () => {
      expectRefused(await overTls(orderPath(merchantA), { certificate: certs.expired, authorization: merchantA.authorization }), 'EXPIRED', merchantA.id);
    });

    it('takes a certificate with the same merchant\'s password, as CERTIFICATE', async () => {
      expect((await overTls(orderPath(merchantA), { certificate: certs.a, authorization: merchantA.authorization })).status).toBe(201);
      expect(authMethods).toEqual(['CERTIFICATE']);
    });

    it("refuses a certificate with another merchant's password", async () => {
      // The certificate is checked against the merchant the password names: B did not register A's certificate.
      expectRefused(await overTls(orderPath(merchantB), { certificate: certs.a, authorization: merchantB.authorization }), 'UNREGISTERED', merchantB.id);
    });

    it("refuses a merchant's certificate on its own path with another merchant's password", async () => {
      // Path and certificate agree; the password names B, and B did not register A's certificate.
      expectRefused(await overTls(orderPath(merchantA), { certificate: certs.a, authorization: merchantB.authorization }), 'UNREGISTERED', merchantB.id);
    });

    it('refuses a registered certificate with a wrong password', async () => {
      const wrong = `Basic ${Buffer.from(`merchant.${merchantA.id}:not-the-password`).toString('base64')}`;
      expect((await overTls(orderPath(merchantA), { certificate: certs.a, authorization: wrong })).status).toBe(401);
    });

    it('refuses a disabled merchant whatever its certificate', async () => {
      const disabled = await edge.createMerchant({ clientCertificates: { fingerprints: [certs.b.fingerprint] } });
      await edge.merchants.setStatus(disabled.id, 'DISABLED');
      const answer = await overTls(orderPath(disabled), { certificate: certs.b });
      expect(answer).toMatchObject({ status: 403, body: { error: { cause: 'REQUEST_REJECTED' } } });
    });

    it('ignores a certificate header sent by a client that is not the proxy', async () => {
      const answer = await throughProxy(orderPath(merchantA), asHeader(certs.a), { from: '192.0.2.10' });
      expect(answer.status).toBe(401);
      const withPassword = await throughProxy(orderPath(merchantA), asHeader(certs.a), { from: '192.0.2.10', authorization: merchantA.authorization });
      expect(withPassword.status).toBe(201);
      expect(authMethods).toEqual(['PASSWORD']);
      expect(logLines.some((line) => line.msg === 'client certificate header from an untrusted address ignored' && line.peer === '192.0.2.10')).toBe(true);
    });
  });

  describe('through the header of a trusted proxy', () => {
    it('authenticates the certificate the proxy forwards, as CERTIFICATE', async () => {
      expect((await throughProxy(orderPath(merchantA), asHeader(certs.a))).status).toBe(201);
      expect(authMethods).toEqual(['CERTIFICATE']);
    });

    it('checks a forwarded certificate like a TLS one', async () => {
      expectRefused(await throughProxy(orderPath(merchantA), asHeader(certs.expired)), 'EXPIRED', merchantA.id);
      expectRefused(await throughProxy(orderPath(merchantA), asHeader(certs.untrusted)), 'UNTRUSTED', merchantA.id);
      expectRefused(await throughProxy(orderPath(merchantA), asHeader(certs.forged)), 'UNTRUSTED', merchantA.id);
      expectRefused(await throughProxy(orderPath(merchantB), asHeader(certs.a)), 'UNREGISTERED', merchantB.id);
    });

    it('refuses a header that is not a certificate', async () => {
      expectRefused(await throughProxy(orderPath(merchantA), 'not%20a%20certificate'), 'UNREADABLE', merchantA.id);
    });

    it('takes a password through the proxy when no certificate is forwarded', async () => {
      expect((await throughProxy(orderPath(merchantA), '', { authorization: merchantA.authorization })).status).toBe(201);
      expect(authMethods).toEqual(['PASSWORD']);
    });
  });

  describe('a password guessed while its merchant is blocked for failed passwords', () => {
    // docs/decisions/authentication-throttling.md, amendment 2026-11-27 (2): past the limit every
    // attempt, right or wrong, is the same 503; no later check may tell the right password apart.
    let blocking: EdgeTestApp;

    beforeAll(async () => {
      blocking = await startEdgeTestApp({
        env: {
          TLS_CERT_FILE: pki.server.certFile,
          TLS_KEY_FILE: pki.server.keyFile,
          TLS_CLIENT_CA_FILE: pki.caFile,
          TLS_CLIENT_CERT: 'request',
          CLIENT_CERT_HEADER: 'ssl-client-cert',
          TRUSTED_PROXIES: PROXY,
          AUTH_FAILURES_PER_MERCHANT: '3',
          AUTH_FAILURES_PER_ADDRESS: '1000',
          AUTH_FAILURE_WINDOW_SECONDS: '60',
          AUTH_FAILURE_BLOCK_SECONDS: '60',
        },
      });
    });

    afterAll(async () => {
      await blocking?.close();
    });

    /** Status, body and whether Retry-After came: what tells one answer from another (the header's seconds tick down). */
    async function attempt(merchant: TestMerchantCredentials, password: string, certificate?: IssuedCertificate): Promise<unknown> {
      const response = await blocking.fastify.inject({
        method: 'PUT',
        url: orderPath(merchant),
        remoteAddress: PROXY,
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`merchant.${merchant.id}:${password}`).toString('base64')}`,
          ...(certificate ? { 'ssl-client-cert': asHeader(certificate) } : {}),
        },
        payload: VERIFY,
      });
      return { status: response.statusCode, body: response.json(), retryAfter: response.headers['retry-after'] !== undefined };
    }

    /** Three wrong passwords reach the limit; then a wrong one and the right one get the same answer. */
    async function expectRightLikeWrong(victim: TestMerchantCredentials, certificate?: IssuedCertificate): Promise<void> {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push(((await attempt(victim, 'not-the-password', certificate)) as { status: number }).status);
      }
      expect(statuses).toEqual([401, 401, 401]);
      const wrongAnswer = await attempt(victim, 'not-the-password', certificate);
      expect(wrongAnswer).toMatchObject({ status: 503, retryAfter: true });
      expect(await attempt(victim, victim.password, certificate)).toEqual(wrongAnswer);
    }

    it('answers the right password as a wrong one, though it comes with a trusted certificate the merchant did not register', async () => {
      // Any certificate of the trusted CA will do (here merchant A's own): before, the right
      // password got the certificate's 403 and a wrong one the block's 503.
      await expectRightLikeWrong(await blocking.createMerchant(), certs.a);
    });

    it('answers the right password of a disabled merchant as a wrong one', async () => {
      const victim = await blocking.createMerchant();
      await blocking.merchants.setStatus(victim.id, 'DISABLED');
      await expectRightLikeWrong(victim);
    });

    it("still takes the merchant's own certificate while its password is blocked", async () => {
      const victim = await blocking.createMerchant({ clientCertificates: { fingerprints: [certs.b.fingerprint] } });
      await expectRightLikeWrong(victim);
      expect(await attempt(victim, victim.password, certs.b)).toMatchObject({ status: 201 });
    });
  });

  describe('with TLS_CLIENT_CERT=require', () => {
    let strict: EdgeTestApp;
    let merchant: TestMerchantCredentials;

    beforeAll(async () => {
      strict = await startEdgeTestApp({
        env: { TLS_CERT_FILE: pki.server.certFile, TLS_KEY_FILE: pki.server.keyFile, TLS_CLIENT_CA_FILE: pki.caFile, TLS_CLIENT_CERT: 'require' },
      });
      merchant = await strict.createMerchant({ clientCertificates: { fingerprints: [certs.a.fingerprint] } });
    });

    afterAll(async () => {
      await strict?.close();
    });

    it('refuses a password alone and takes the certificate', async () => {
      expect((await overTls(orderPath(merchant), { authorization: merchant.authorization, app: strict })).status).toBe(401);
      expect((await overTls(orderPath(merchant), { certificate: certs.a, app: strict })).status).toBe(201);
    });
  });
});
