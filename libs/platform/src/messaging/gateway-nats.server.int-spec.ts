import { connect } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { rejectionOf, testServers } from '../test-support';
import { GatewayNatsClient } from './gateway-nats.client';
import { GatewayNatsServer } from './gateway-nats.server';
import { MessageBus, NotDeliveredError } from './message-bus';

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

    blocked.splice(0).forEach((release) => release());
    await expect(Promise.all([first, second])).resolves.toEqual([{ n: 1 }, { n: 2 }]);
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
