import { ClientRequest, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { SUBJECTS } from '@gateway/contracts';
import { standaloneBus } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/**
 * The edge's in-flight cap (EDGE_MAX_IN_FLIGHT, docs/decisions/edge-admission.md), on a real
 * edge over real HTTP. Requests are held in flight by a service that answers only when the test
 * lets it: the edge waits for it (its request timeout is set far beyond the test's).
 */
const MAX_IN_FLIGHT = 3;
const VERIFY = JSON.stringify({
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
});
const BUSY = { error: { cause: 'SERVER_BUSY', explanation: 'The gateway is busy. Please retry the request.' }, result: 'ERROR' };

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

describe('the edge in-flight cap', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;
  /** Requests the service received; how many of the next ones it holds, and how to let each held one answer. */
  let arrivals = 0;
  let toHold = 0;
  const held: (() => void)[] = [];
  const arrivalWaiters: { count: number; resolve: () => void }[] = [];
  let order = 0;
  /** Set once the suite is done: a wait left behind by a failed test stops asking. */
  let done = false;
  /** Every client request, closed before the edge is (one left open would hold its shutdown). */
  const clients: ClientRequest[] = [];

  beforeAll(async () => {
    standaloneBus.register(SUBJECTS.orderTransaction.verify, async () => {
      arrivals++;
      for (const waiter of arrivalWaiters.filter((w) => arrivals >= w.count)) {
        arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (toHold > 0) {
        toHold--;
        await new Promise<void>((release) => held.push(release));
      }
      return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
    });
    edge = await startEdgeTestApp({ env: { EDGE_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT) }, requestTimeoutMs: 600_000 });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    done = true;
    releaseAll();
    clients.forEach((client) => client.destroy());
    standaloneBus.unregister(SUBJECTS.orderTransaction.verify);
    await edge?.close();
  });

  afterEach(async () => {
    toHold = 0;
    releaseAll();
    await untilInFlight(0);
  });

  function releaseAll(): void {
    held.splice(0).forEach((release) => release());
  }

  function untilArrivals(count: number): Promise<void> {
    return arrivals >= count ? Promise.resolve() : new Promise((resolve) => arrivalWaiters.push({ count, resolve }));
  }

  /** Sends over its own connection; `request` is there to walk away from it. */
  function send(path: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
    const request = httpRequest(`${edge.running.url}${path}`, { method: options.method ?? 'GET', headers: options.headers, agent: false });
    clients.push(request);
    const answer = new Promise<Answer>((resolve, reject) => {
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
      });
      request.on('error', reject);
    });
    request.end(options.body);
    return { request, answer };
  }

  function verify(authorization = merchant.authorization): { request: ClientRequest; answer: Promise<Answer> } {
    order++;
    return send(`/api/rest/version/100/merchant/${merchant.id}/order/cap-${order}/transaction/t-1`, {
      method: 'PUT',
      body: VERIFY,
      headers: { authorization, 'content-type': 'application/json' },
    });
  }

  /** `count` VERIFYs the service holds: in flight at the edge once the service has them. Any later one it answers at once. */
  async function hold(count: number) {
    toHold += count;
    const sent = Array.from({ length: count }, () => verify());
    await untilArrivals(arrivals + count);
    return sent;
  }

  async function metric(name: string): Promise<number> {
    const { text } = await send('/metrics').answer;
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1]);
  }

  /** Each look is a scrape the edge answers after what it had to do before it (a close, say). */
  async function untilInFlight(count: number): Promise<void> {
    while (!done && (await metric('gateway_edge_requests_in_flight')) !== count);
  }

  it('refuses the request past the cap at once, 503 SERVER_BUSY with Retry-After, before its credentials, unprocessed', async () => {
    const inFlight = await hold(MAX_IN_FLIGHT);
    const shedBefore = await metric('gateway_edge_requests_shed_total');
    const arrivedBefore = arrivals;

    const refused = await verify().answer;
    expect({ status: refused.status, body: JSON.parse(refused.text), retryAfter: refused.headers['retry-after'] }).toEqual({ status: 503, body: BUSY, retryAfter: '1' });
    // Before the credentials: a wrong password is not even looked at.
    const wrongPassword = await verify(`Basic ${Buffer.from(`merchant.${merchant.id}:wrong`).toString('base64')}`).answer;
    expect({ status: wrongPassword.status, body: JSON.parse(wrongPassword.text) }).toEqual({ status: 503, body: BUSY });
    expect(await metric('gateway_edge_requests_shed_total')).toBe(shedBefore + 2);

    // The held ones were not disturbed, and once they are answered their slots take new requests.
    releaseAll();
    expect((await Promise.all(inFlight.map((s) => s.answer))).map((a) => a.status)).toEqual([201, 201, 201]);
    expect((await verify().answer).status).toBe(201);
    expect(arrivals).toBe(arrivedBefore + 1);
  });

  it('gives a payer at the cap the busy page, not the API body', async () => {
    await hold(MAX_IN_FLIGHT);
    const shedBefore = await metric('gateway_edge_requests_shed_total');
    const page = await send('/bpui/simulator/out/a-redirect-token').answer;
    expect({ status: page.status, type: page.headers['content-type'], retryAfter: page.headers['retry-after'], referrer: page.headers['referrer-policy'] }).toEqual({
      status: 503,
      type: 'text/html; charset=utf-8',
      retryAfter: '2',
      referrer: 'no-referrer',
    });
    expect(page.text).toContain('Please reload this page in a few seconds.');
    expect(await metric('gateway_edge_requests_shed_total')).toBe(shedBefore + 1);
  });

  it('keeps answering its probes and metrics at the cap', async () => {
    await hold(MAX_IN_FLIGHT);
    expect((await send('/health/live').answer).status).toBe(200);
    expect((await send('/health/ready').answer).status).toBe(200);
    expect(await metric('gateway_edge_requests_in_flight')).toBe(MAX_IN_FLIGHT);
  });

  it('frees the slot of a client that leaves before its answer, once', async () => {
    const [leaving, ...staying] = await hold(MAX_IN_FLIGHT);
    leaving.answer.catch(() => undefined);
    leaving.request.destroy();
    await untilInFlight(MAX_IN_FLIGHT - 1);

    // The freed slot takes a new request; the cap holds again after it.
    const arrivedBefore = arrivals;
    toHold++;
    const next = verify();
    await untilArrivals(arrivedBefore + 1);
    expect((await verify().answer).status).toBe(503);

    // When the service answers them all (the one nobody waits for too), every slot is back,
    // none twice: the count is 0, and the cap takes exactly MAX_IN_FLIGHT again.
    releaseAll();
    expect((await Promise.all([...staying, next].map((s) => s.answer))).map((a) => a.status)).toEqual([201, 201, 201]);
    await untilInFlight(0);
    const again = await hold(MAX_IN_FLIGHT);
    expect((await verify().answer).status).toBe(503);
    releaseAll();
    await Promise.all(again.map((s) => s.answer));
  });

  it('frees the slots of pipelined requests whose client leaves: those queued behind the first never get a response of their own to close', async () => {
    // Three requests on one connection, sent before any answer (HTTP/1.1 pipelining): the edge
    // handles them side by side, but Node gives the connection to the first one's response only.
    toHold += MAX_IN_FLIGHT;
    const arrivedBefore = arrivals;
    const socket = connect(Number(new URL(edge.running.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    const path = (n: number) => `/api/rest/version/100/merchant/${merchant.id}/order/pipelined-${n}/transaction/t-1`;
    const requests = Array.from({ length: MAX_IN_FLIGHT }, (_, n) =>
      [
        `PUT ${path(n)} HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: ${merchant.authorization}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(VERIFY)}`,
        '',
        VERIFY,
      ].join('\r\n'),
    );
    socket.write(requests.join(''));
    await untilArrivals(arrivedBefore + MAX_IN_FLIGHT);
    expect(await metric('gateway_edge_requests_in_flight')).toBe(MAX_IN_FLIGHT);

    socket.destroy();
    // Every slot is back (before the fix two stayed taken for good: this waited forever) ...
    await untilInFlight(0);
    // ... and the cap takes exactly MAX_IN_FLIGHT again.
    releaseAll();
    const again = await hold(MAX_IN_FLIGHT);
    expect((await verify().answer).status).toBe(503);
    releaseAll();
    await Promise.all(again.map((s) => s.answer));
  });

  it('gives no slot to a request whose body is still coming (a slow sender holds none)', async () => {
    // Headers sent, the server's 100 Continue received (its hooks have seen the request), and
    // no body: what a slow client, or a hostile one, holds open until HTTP_REQUEST_TIMEOUT_MS.
    const slow = await Promise.all(
      Array.from({ length: MAX_IN_FLIGHT }, () => {
        const request = httpRequest(`${edge.running.url}/api/rest/version/100/merchant/${merchant.id}/order/slow/transaction/t-1`, {
          method: 'PUT',
          agent: false,
          headers: { authorization: merchant.authorization, 'content-type': 'application/json', 'content-length': '100', expect: '100-continue' },
        });
        clients.push(request);
        request.on('error', () => undefined);
        request.flushHeaders();
        return new Promise<ClientRequest>((resolve) => request.on('continue', () => resolve(request)));
      }),
    );
    expect(await metric('gateway_edge_requests_in_flight')).toBe(0);
    const inFlight = await hold(MAX_IN_FLIGHT);
    expect(await metric('gateway_edge_requests_in_flight')).toBe(MAX_IN_FLIGHT);
    slow.forEach((request) => request.destroy());
    releaseAll();
    await Promise.all(inFlight.map((s) => s.answer));
  });
});
