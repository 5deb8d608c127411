import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { freePort, testServers } from '../test-support';
import { GatewayNatsClient } from './gateway-nats.client';
import { MessageBus, NotDeliveredError, RequestReplyClient, UnansweredError } from './message-bus';
import { ReplyInbox } from './reply-inbox';

const NATS_URL = testServers.natsUrl;
const prefix = `t${randomBytes(6).toString('hex')}.`;

function busOver(client: RequestReplyClient): MessageBus {
  return new MessageBus(
    client,
    { profile: 'distributed', servers: [NATS_URL], subjectPrefix: prefix, requestTimeoutMs: 5_000, serviceName: 'client-test' },
    createLogger({ service: 'client-test', level: 'silent' }),
    new Metrics(),
  );
}

describe('GatewayNatsClient.request', () => {
  let service: NatsConnection;
  const client = new GatewayNatsClient({ servers: [NATS_URL], name: 'client-test', requestTimeoutMs: 1_000 });

  beforeAll(async () => {
    service = await connect({ servers: NATS_URL });
    // A service answering in Nest's wire format: { id, response } or { id, err }, disposed.
    service.subscribe(`${prefix}echo.v1`, {
      callback: (_, msg) => {
        const packet = msg.json<{ id: string; pattern: string; data: unknown }>();
        msg.respond(JSON.stringify({ id: packet.id, response: { pattern: packet.pattern, data: packet.data }, isDisposed: true }));
      },
    });
    // Answers after 300 ms, with the request's own data.
    service.subscribe(`${prefix}slow.v1`, {
      callback: (_, msg) => {
        const packet = msg.json<{ id: string; data: unknown }>();
        setTimeout(() => msg.respond(JSON.stringify({ id: packet.id, response: packet.data, isDisposed: true })), 300);
      },
    });
    service.subscribe(`${prefix}refuse.v1`, {
      callback: (_, msg) => {
        msg.respond(JSON.stringify({ id: msg.json<{ id: string }>().id, err: { code: 'INVALID_REQUEST' }, isDisposed: true }));
      },
    });
    await service.flush();
  });

  afterAll(async () => {
    await client.close();
    await service.close();
  });

  it("sends Nest's packet and answers with the reply's response", async () => {
    await expect(client.request(`${prefix}echo.v1`, { a: 1 }, 1_000)).resolves.toEqual({ pattern: `${prefix}echo.v1`, data: { a: 1 } });
  });

  it('gives each of many concurrent requests its own reply', async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => client.request(`${prefix}echo.v1`, { i }, 2_000)));

    expect(replies.map((reply) => (reply as { data: { i: number } }).data.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('fails with a TimeoutError when the reply is late, and ignores the reply when it comes', async () => {
    await expect(client.request(`${prefix}slow.v1`, { n: 1 }, 100)).rejects.toMatchObject({ name: 'TimeoutError' });
    await new Promise((resolve) => setTimeout(resolve, 400));

    await expect(client.request(`${prefix}slow.v1`, { n: 2 }, 2_000)).resolves.toEqual({ n: 2 });
  });

  it('fails the requests still waiting when the client closes', async () => {
    const closing = new GatewayNatsClient({ servers: [NATS_URL], name: 'client-test', requestTimeoutMs: 5_000 });
    await closing.connect();
    const waiting = closing.request(`${prefix}slow.v1`, {}, 5_000);
    const started = Date.now();

    await closing.close();

    await expect(waiting).rejects.toMatchObject({ name: 'ClosedConnectionError' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("throws the reply's error as the service sent it", async () => {
    await expect(client.request(`${prefix}refuse.v1`, {}, 1_000)).rejects.toEqual({ code: 'INVALID_REQUEST' });
  });

  it('fails at once when nobody serves the subject, which MessageBus tells apart as never delivered', async () => {
    const started = Date.now();

    await expect(busOver(client).request('nobody.v1', {})).rejects.toBeInstanceOf(NotDeliveredError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  /**
   * What MessageBus makes of a request refused before it left the client, against what it makes
   * of one published whose reply never came: only the first may count as never delivered (a
   * session's security code is given back on it, a reservation released).
   */
  describe('on a connection that is going away', () => {
    /** A client of its own, connected, and its connection: each test ends them itself. */
    async function connectedClient(): Promise<{ closing: GatewayNatsClient; connection: NatsConnection }> {
      const closing = new GatewayNatsClient({ servers: [NATS_URL], name: 'client-test', requestTimeoutMs: 2_000 });
      return { closing, connection: (await closing.connect()) as unknown as NatsConnection };
    }

    it('reads a request on a draining connection as never delivered', async () => {
      const { closing, connection } = await connectedClient();
      const drained = connection.drain();

      await expect(busOver(closing).request('echo.v1', {})).rejects.toBeInstanceOf(NotDeliveredError);
      await drained;
      await closing.close();
    });

    it('reads a request on a connection already closed as never delivered', async () => {
      // The inbox the client holds for the connection; once nats.js has closed it, Nest drops it
      // and the client's next request connects anew: the moment in between, held still here.
      const connection = await connect({ servers: NATS_URL });
      const inbox = new ReplyInbox(connection);
      await connection.close();
      const closedClient: RequestReplyClient = { request: (subject, data, timeoutMs) => inbox.request(subject, JSON.stringify(data), undefined, timeoutMs) };

      await expect(busOver(closedClient).request('echo.v1', {})).rejects.toBeInstanceOf(NotDeliveredError);
    });

    it('reads a request whose reply inbox cannot be opened on a closed connection as never delivered', async () => {
      // The same moment before any request made an inbox on the connection: the client's first
      // request subscribes its inbox, which nats.js refuses on a closed connection.
      const closing = new GatewayNatsClient({ servers: [NATS_URL], name: 'client-test', requestTimeoutMs: 2_000 });
      const connection = await connect({ servers: NATS_URL });
      await connection.close();
      (closing as unknown as { natsClient: NatsConnection }).natsClient = connection;

      await expect(busOver(closing).request('echo.v1', {})).rejects.toBeInstanceOf(NotDeliveredError);
    });

    it('reads a request published before its connection closed as unanswered: the service may have it', async () => {
      const { closing, connection } = await connectedClient();
      const waiting = busOver(closing).request('slow.v1', {});
      await connection.flush(); // published: the service has it
      await connection.close();

      await expect(waiting).rejects.toBeInstanceOf(UnansweredError);
      await closing.close();
    });
  });

  it('fails as not sent within the request time while NATS was never reachable, and connects once it is', async () => {
    const port = await freePort();
    const late = new GatewayNatsClient({ servers: [`nats://127.0.0.1:${port}`], name: 'client-test', requestTimeoutMs: 300 });
    let nats: ChildProcess | undefined;
    try {
      await expect(late.request('any.v1', {}, 300)).rejects.toMatchObject({ name: 'NotSent' });

      nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      // The client keeps trying: with NATS up, the same subject is now merely unserved.
      await expect(late.request('any.v1', {}, 5_000)).rejects.toMatchObject({ name: 'NoResponders' });
    } finally {
      await late.close();
      nats?.kill('SIGTERM');
    }
  });
});
