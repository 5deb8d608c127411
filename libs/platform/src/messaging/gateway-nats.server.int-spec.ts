import { connect, createInbox, type Msg } from '@nats-io/transport-node';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { freePort, rejectionOf, testServers } from '../test-support';
import { GatewayNatsClient } from './gateway-nats.client';
import { GatewayNatsServer } from './gateway-nats.server';
import { MessageBus, NotDeliveredError } from './message-bus';
import { REPLY_PART_HEADER } from './reply-parts';

const NATS_URL = testServers.natsUrl;
const prefix = `t${randomBytes(6).toString('hex')}.`;
const logger = createLogger({ service: 'shed-test', level: 'silent' });

describe('GatewayNatsServer in-flight cap', () => {
  const server = new GatewayNatsServer({ servers: [NATS_URL], name: 'shed-test', queue: 'shed-test', subjectPrefix: prefix, drainTimeoutMs: 1_000, maxInFlight: 2 });
  const serverMetrics = new Metrics();
  const client = new GatewayNatsClient({ servers: [NATS_URL], name: 'shed-test-client', requestTimeoutMs: 5_000 });
  const bus = new MessageBus(
    client,
    { profile: 'distributed', servers: [NATS_URL], subjectPrefix: prefix, requestTimeoutMs: 5_000, serviceName: 'shed-test-client' },
    logger,
    new Metrics(),
  );
  /** Handlers started, and the release of those still blocked. */
  let started = 0;
  const blocked: (() => void)[] = [];

  beforeAll(async () => {
    server.addHandler(
      'block.v1',
      Object.assign(
        async (data: { n: number }) => {
          started++;
          await new Promise<void>((resolve) => blocked.push(resolve));
          return { n: data.n };
        },
        { isEventHandler: false },
      ),
    );
    server.addHandler('echo.v1', Object.assign(async (data: unknown) => data, { isEventHandler: false }));
    server.observeWith(serverMetrics, logger);
    await new Promise<void>((resolve, reject) => server.listen((err?: unknown) => (err ? reject(err) : resolve())));
  });

  afterAll(async () => {
    blocked.forEach((release) => release());
    await client.close();
    await server.close();
  });

  async function handlersStarted(count: number): Promise<void> {
    while (started < count) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The in-flight gauges' samples as Prometheus scrapes them. */
  async function inFlightScraped(): Promise<string[]> {
    return (await serverMetrics.registry.metrics()).split('\n').filter((line) => /^gateway_messages_(max_)?in_flight /.test(line));
  }

  it('refuses a request beyond the cap at once, unprocessed, and serves again once handlers finish', async () => {
    const first = bus.request('block.v1', { n: 1 });
    const second = bus.request('block.v1', { n: 2 });
    await handlersStarted(2);

    const refused = await rejectionOf(bus.request('block.v1', { n: 3 }));

    // Refused while both handlers still block: not a timeout, and the handler never ran. As
    // NotDeliveredError, a caller that reserved something releases it (the ledger's hadNoEffect).
    expect(refused).toBeInstanceOf(NotDeliveredError);
    expect(refused).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1 });
    expect(started).toBe(2);
    expect((await serverMetrics.messagesShed.get()).values).toEqual([{ labels: { subject: 'block.v1' }, value: 1 }]);
    // The scrape shows the service at its cap.
    expect(await inFlightScraped()).toEqual(['gateway_messages_in_flight 2', 'gateway_messages_max_in_flight 2']);

    blocked.splice(0).forEach((release) => release());
    await expect(Promise.all([first, second])).resolves.toEqual([{ n: 1 }, { n: 2 }]);
    expect(await inFlightScraped()).toEqual(['gateway_messages_in_flight 0', 'gateway_messages_max_in_flight 2']);
    const later = bus.request('block.v1', { n: 4 });
    await handlersStarted(3);
    blocked.splice(0).forEach((release) => release());
    await expect(later).resolves.toEqual({ n: 4 });
  });

  it('frees the place of a message Nest handles as an event though it has a reply subject: no reply is coming', async () => {
    const raw = await connect({ servers: NATS_URL });
    try {
      // A bare payload, as a NATS tool sends it (no packet id): Nest runs the handler as for an
      // event and publishes nothing. As many as the cap, one after the other.
      for (let n = 0; n < 2; n++) {
        await expect(raw.request(`${prefix}echo.v1`, JSON.stringify({ n }), { timeout: 300 })).rejects.toThrow();
      }
      // Had they kept their places, this one would be refused as over the cap.
      await expect(bus.request('echo.v1', { n: 3 })).resolves.toEqual({ n: 3 });
      expect((await serverMetrics.messagesShed.get()).values).toEqual([{ labels: { subject: 'block.v1' }, value: 1 }]);
    } finally {
      await raw.close();
    }
  });
});

/**
 * A subscription NATS refuses (the service's user may not subscribe to the subject: a permission
 * missing from the deployment's NATS account), from a nats-server of this test's own whose
 * authorization denies one subject. nats.js calls the subscription's callback once, with the
 * PermissionViolationError and an empty placeholder for the message, and closes the
 * subscription. The server must not read that placeholder as a request (refuse it over the cap,
 * hand it to the direct dispatch): it hands the error to Nest's handler, which logs it, and the
 * place it took under the in-flight cap is given back.
 */
describe('GatewayNatsServer on a subscription NATS refuses', () => {
  const DENIED = 'denied.v1';
  let dir: string;
  let nats: ChildProcess;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nats-denied-'));
    const port = await freePort();
    const config = path.join(dir, 'nats.conf');
    // Connections without credentials are this user, who may subscribe to anything but DENIED.
    writeFileSync(
      config,
      `listen: "127.0.0.1:${port}"
accounts: { GATEWAY: { users: [ { user: "service", password: "service", permissions: { subscribe: { deny: ["${DENIED}"] } } } ] } }
no_auth_user: "service"
`,
    );
    nats = spawn('nats-server', ['-c', config], { stdio: 'ignore' });
    url = `nats://127.0.0.1:${port}`;
    await listening(url);
  });

  afterAll(() => {
    nats?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it("logs NATS's refusal through Nest, gives its in-flight place back and goes on serving the other subjects", async () => {
    // A cap of one: had the refusal kept the place it took, the echo below would be refused as over the cap.
    const server = new GatewayNatsServer({ servers: [url], name: 'denied-test', queue: 'denied-test', subjectPrefix: '', drainTimeoutMs: 1_000, maxInFlight: 1 });
    const nestLogger = (server as unknown as { logger: { error: (...args: unknown[]) => void } }).logger;
    const logged = jest.spyOn(nestLogger, 'error').mockImplementation(() => undefined);
    const handled: string[] = [];
    for (const subject of [DENIED, 'echo.v1']) {
      const handler = async (data: unknown) => {
        handled.push(subject);
        return data;
      };
      server.addHandler(subject, Object.assign(handler, { isEventHandler: false }));
    }
    const metrics = new Metrics();
    server.observeWith(metrics, logger);
    const client = new GatewayNatsClient({ servers: [url], name: 'denied-test-client', requestTimeoutMs: 2_000 });
    const bus = new MessageBus(client, { profile: 'distributed', servers: [url], subjectPrefix: '', requestTimeoutMs: 2_000, serviceName: 'denied-test-client' }, logger, new Metrics());
    try {
      await new Promise<void>((resolve, reject) => server.listen((err?: unknown) => (err ? reject(err) : resolve())));
      // Nest logs the connection's status line too; the subscription's handler, the error itself.
      const refusal = expect.objectContaining({ name: 'PermissionViolationError', operation: 'subscription', subject: DENIED });
      await until(() => logged.mock.calls.some(([err]) => refusal.asymmetricMatch(err)));
      await expect(bus.request('echo.v1', { n: 1 })).resolves.toEqual({ n: 1 });
      // Nobody took the subject NATS refused: a requester hears at once that it was not delivered.
      expect(await rejectionOf(bus.request(DENIED, { n: 2 }))).toBeInstanceOf(NotDeliveredError);
      expect(handled).toEqual(['echo.v1']);
      expect((await metrics.messagesShed.get()).values).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

/**
 * The wire format of a reply over max_payload (docs/decisions/subject-prefix-and-in-process-bus.md,
 * amendment on replies in parts), read with a bare nats.js connection: parts in order, each with
 * its Gateway-Reply-Part header; a reply within max_payload exactly as before, without headers.
 */
describe('GatewayNatsServer replies over max_payload', () => {
  const server = new GatewayNatsServer({ servers: [NATS_URL], name: 'parts-test', queue: 'parts-test', subjectPrefix: prefix, drainTimeoutMs: 1_000, maxInFlight: 4 });

  beforeAll(async () => {
    server.addHandler('sized.v1', Object.assign(async (data: { size: number }) => 'r'.repeat(data.size), { isEventHandler: false }));
    await new Promise<void>((resolve, reject) => server.listen((err?: unknown) => (err ? reject(err) : resolve())));
  });

  afterAll(async () => {
    await server.close();
  });

  /** The messages answering a request for a reply of `size` characters, up to the last part (or the one reply). */
  async function repliesTo(size: number): Promise<Msg[]> {
    const raw = await connect({ servers: NATS_URL });
    try {
      const inbox = createInbox();
      const received: Msg[] = [];
      const done = new Promise<void>((resolve) => {
        raw.subscribe(inbox, {
          callback: (_err, msg) => {
            received.push(msg);
            const part = msg.headers?.get(REPLY_PART_HEADER);
            if (!part || part.split('/')[0] === part.split('/')[1]) {
              resolve();
            }
          },
        });
      });
      raw.publish(`${prefix}sized.v1`, JSON.stringify({ pattern: `${prefix}sized.v1`, data: { size }, id: '7' }), { reply: inbox });
      await done;
      return received;
    } finally {
      await raw.close();
    }
  }

  it('sends a reply within max_payload as one message without headers, and one over it in numbered parts that make up the same packet', async () => {
    const small = await repliesTo(10);
    expect(small).toHaveLength(1);
    expect(small[0].headers).toBeUndefined();
    expect(small[0].json()).toEqual({ id: '7', response: 'r'.repeat(10), isDisposed: true });

    const size = 2 * 1024 * 1024 + 10;
    const parts = await repliesTo(size);
    expect(parts.map((msg) => msg.headers?.get(REPLY_PART_HEADER))).toEqual(['1/3', '2/3', '3/3']);
    for (const part of parts) {
      expect(part.data.length).toBeLessThanOrEqual(1024 * 1024);
    }
    const whole = Buffer.concat(parts.map((msg) => msg.data)).toString('utf8');
    expect(JSON.parse(whole)).toEqual({ id: '7', response: 'r'.repeat(size), isDisposed: true });
  });
});

/** Once a server listens on `url` (within 5 s). */
async function listening(url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await (await connect({ servers: url, reconnect: false, timeout: 1_000 })).close();
      return;
    } catch (err) {
      if (attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
