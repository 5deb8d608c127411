import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { createTestPki, freePort, IssuedCertificate, TEST_CARD, TestPki, waitFor } from '@gateway/testing';
import { admin, basic, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { StartedProcess, startApp } from '../support/processes';

jest.setTimeout(120_000);

const BLOCK_SECONDS = 3;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfter?: string;
}

/**
 * Two more api-edge processes of this run, serving HTTPS with client certificates, in front
 * of the run's services and sharing its Redis: certificate authentication end to end, and a
 * brute force spread over both replicas stopped by one limit. Requests carry a body that is
 * not JSON: its 400 comes only after the credentials were accepted (the order of checks), so
 * it tells an authenticated request apart whatever the services behind implement yet.
 */
const AUTHENTICATED = { status: 400, body: { error: { cause: 'INVALID_REQUEST', explanation: expect.stringMatching(/^The request body is not valid JSON/) }, result: 'ERROR' } };
describe('edge replicas with TLS, certificates and a shared throttle', () => {
  let pki: TestPki;
  let ca: string;
  let logDir: string;
  const replicas: { process: StartedProcess; url: string }[] = [];
  let client: IssuedCertificate;
  let expired: IssuedCertificate;

  beforeAll(async () => {
    pki = createTestPki();
    ca = readFileSync(pki.caFile, 'utf8');
    client = pki.issue('client', { subject: '/O=E2E Shop/CN=e2e-shop.example' });
    expired = pki.issue('expired', { subject: '/O=E2E Shop/CN=e2e-shop.example', notBefore: new Date(Date.now() - 9e9), notAfter: new Date(Date.now() - 1e9) });
    const state = readState();
    logDir = path.join(state.logDir, 'edge-replicas');
    for (const name of ['edge-a', 'edge-b']) {
      const port = await freePort();
      const env = {
        ...state.appEnv['api-edge'],
        HTTP_PORT: String(port),
        TLS_CERT_FILE: pki.server.certFile,
        TLS_KEY_FILE: pki.server.keyFile,
        TLS_CLIENT_CA_FILE: pki.caFile,
        TLS_CLIENT_CERT: 'request',
        AUTH_FAILURES_PER_MERCHANT: '3',
        AUTH_FAILURES_PER_ADDRESS: '1000',
        AUTH_FAILURE_BLOCK_SECONDS: String(BLOCK_SECONDS),
        DATABASE_MIGRATE_ON_START: 'false',
      };
      replicas.push({ process: startApp('api-edge', env, logDir, name), url: `https://127.0.0.1:${port}` });
    }
    for (const replica of replicas) {
      await waitFor(async () => (await get(`${replica.url}/health/ready`)) === 200, { timeoutMs: 60_000, what: `${replica.process.name} to be ready` });
    }
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.stop()));
    pki?.remove();
  });

  function get(url: string): Promise<number> {
    return new Promise((resolve) => {
      const request = httpsRequest(url, { ca, agent: false, timeout: 2_000 }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', () => resolve(0));
      request.end();
    });
  }

  function put(replica: number, merchant: TestMerchant, options: { certificate?: IssuedCertificate; password?: string } = {}): Promise<Answer> {
    const body = `{"apiOperation":"VERIFY","sourceOfFunds":{"provided":{"card":{"number":"${TEST_CARD}"`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.password !== undefined) headers.authorization = basic(`merchant.${merchant.id}`, options.password);
    return new Promise((resolve, reject) => {
      const request = httpsRequest(
        `${replicas[replica].url}${merchant.base()}/order/o-${Date.now()}-${Math.random()}/transaction/t-1`,
        { method: 'PUT', ca, agent: false, cert: options.certificate?.cert, key: options.certificate?.key, headers },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode!, body: JSON.parse(text), retryAfter: response.headers['retry-after'] as string | undefined }),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  it('authenticates a merchant by the certificate registered with the admin CLI alone, on either replica', async () => {
    const merchant = await createMerchant();
    expect((await put(0, merchant, { certificate: client })).status).toBe(403);
    await admin(['add-certificate', merchant.id, client.certFile]);
    expect(await put(0, merchant, { certificate: client })).toMatchObject(AUTHENTICATED);
    expect(await put(1, merchant, { certificate: client })).toMatchObject(AUTHENTICATED);
    expect((await put(1, merchant)).status).toBe(401);
  });

  it('refuses an expired certificate with 403 and a support code the replica logged with the reason', async () => {
    const merchant = await createMerchant();
    await admin(['add-certificate', merchant.id, expired.certFile]);
    const answer = await put(1, merchant, { certificate: expired });
    expect(answer).toEqual({
      status: 403,
      body: { error: { cause: 'REQUEST_REJECTED', supportCode: expect.stringMatching(/^[0-9A-F]{12}$/) }, result: 'ERROR' },
      retryAfter: undefined,
    });
    const supportCode = (answer.body.error as { supportCode: string }).supportCode;
    await waitFor(
      async () =>
        readFileSync(replicas[1].process.logFile, 'utf8')
          .split('\n')
          .some((line) => line.includes(supportCode) && line.includes('"reason":"EXPIRED"')),
      { timeoutMs: 5_000, what: 'the refusal in the log' },
    );
  });

  it('stops a brute force spread over both replicas, even the right password, while the certificate and other merchants work', async () => {
    const [victim, bystander] = await Promise.all([createMerchant(), createMerchant()]);
    await admin(['add-certificate', victim.id, client.certFile]);
    for (let i = 0; i < 3; i++) {
      expect((await put(i % 2, victim, { password: `${victim.password}-guess-${i}` })).status).toBe(401);
    }
    for (const replica of [0, 1]) {
      const throttled = await put(replica, victim, { password: victim.password });
      expect(throttled).toEqual({
        status: 503,
        body: { error: { cause: 'SERVER_BUSY', explanation: 'Too many failed authentication attempts. Please retry later.' }, result: 'ERROR' },
        retryAfter: expect.stringMatching(/^[1-3]$/),
      });
      expect(await put(replica, bystander, { password: bystander.password })).toMatchObject(AUTHENTICATED);
      expect(await put(replica, victim, { certificate: client })).toMatchObject(AUTHENTICATED);
    }
    await new Promise((resolve) => setTimeout(resolve, BLOCK_SECONDS * 1000 + 200));
    expect(await put(1, victim, { password: victim.password })).toMatchObject(AUTHENTICATED);
  });
});
