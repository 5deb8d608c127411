import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { freePort, testServers } from '../test-support';
import { GatewayNatsClient } from './gateway-nats.client';
import { MessageBus, NotDeliveredError } from './message-bus';

const NATS_URL = testServers.natsUrl;
const prefix = `t${randomBytes(6).toString('hex')}.`;

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
    const bus = new MessageBus(
      client,
      { profile: 'distributed', servers: [NATS_URL], subjectPrefix: prefix, requestTimeoutMs: 5_000, serviceName: 'client-test' },
      createLogger({ service: 'client-test', level: 'silent' }),
      new Metrics(),
    );

    await expect(bus.request('nobody.v1', {})).rejects.toBeInstanceOf(NotDeliveredError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails with a TimeoutError within the request time while NATS was never reachable, and connects once it is', async () => {
    const port = await freePort();
    const late = new GatewayNatsClient({ servers: [`nats://127.0.0.1:${port}`], name: 'client-test', requestTimeoutMs: 300 });
    let nats: ChildProcess | undefined;
    try {
      await expect(late.request('any.v1', {}, 300)).rejects.toMatchObject({ name: 'TimeoutError' });

      nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      // The client keeps trying: with NATS up, the same subject is now merely unserved.
      await expect(late.request('any.v1', {}, 5_000)).rejects.toMatchObject({ name: 'NoResponders' });
    } finally {
      await late.close();
      nats?.kill('SIGTERM');
    }
  });
});
