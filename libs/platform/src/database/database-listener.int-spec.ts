import { randomBytes } from 'node:crypto';
import { createServer, Server, Socket, connect } from 'node:net';
import { Client } from 'pg';
import { freePort, testServers } from '../test-support';
import { DatabaseListener, DatabaseListenerOptions } from './database-listener';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? testServers.pgAdminUrl;

/**
 * A TCP relay to Postgres on `port` that can go silent: the connections it relays stay open but
 * nothing passes any more, as across a network partition (no reset, no FIN). Connections made
 * after that are relayed again.
 */
async function relay(port: number): Promise<{ url: string; silence(): void; openClients(): number; close(): Promise<void> }> {
  const target = new URL(DATABASE_URL);
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let silenced: Socket[] = [];
  const server: Server = createServer((inbound) => {
    clients.add(inbound);
    inbound.on('close', () => clients.delete(inbound));
    const outbound = connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [inbound, outbound],
      [outbound, inbound],
    ]) {
      sockets.add(from);
      from.on('data', (chunk) => silenced.includes(from) || to.write(chunk));
      from.on('error', () => undefined);
      from.on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = new URL(DATABASE_URL);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    silence: () => (silenced = [...sockets]),
    openClients: () => clients.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What a listener told, in order. */
function recorder() {
  const events: (['listening', number] | ['notified', string] | ['lost', string])[] = [];
  return {
    events,
    handlers: {
      listening: (pid: number) => events.push(['listening', pid]),
      notified: (payload: string) => events.push(['notified', payload]),
      lost: (err: Error) => events.push(['lost', err.message]),
    },
    pids: () => events.filter(([kind]) => kind === 'listening').map(([, pid]) => pid as number),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('DatabaseListener', () => {
  const channel = `listener_test_${randomBytes(4).toString('hex')}`;
  let notifier: Client;
  const started: DatabaseListener[] = [];

  function listener(url: string, handlers: ReturnType<typeof recorder>['handlers'], options: Partial<DatabaseListenerOptions> = {}) {
    const created = new DatabaseListener({ connectionString: url, connectionTimeoutMillis: 1_000 }, { channel, firstRetryMs: 100, ...options }, handlers);
    started.push(created);
    return created;
  }

  beforeAll(async () => {
    notifier = new Client({ connectionString: DATABASE_URL });
    await notifier.connect();
  });

  afterAll(async () => {
    await Promise.all(started.map((l) => l.stop()));
    await notifier?.end();
  });

  it('hears what is notified on its channel, and nothing once stopped', async () => {
    const told = recorder();
    const subject = listener(DATABASE_URL, told.handlers);
    await subject.start();
    expect(subject.isListening).toBe(true);
    await notifier.query(`SELECT pg_notify($1, 'SHOP1'), pg_notify($1 || '_other', 'SHOP2')`, [channel]);
    await until(() => told.events.length === 2, 'the notification');
    expect(told.events).toEqual([
      ['listening', expect.any(Number)],
      ['notified', 'SHOP1'],
    ]);

    await subject.stop();
    expect(subject.isListening).toBe(false);
    await notifier.query(`SELECT pg_notify($1, 'SHOP3')`, [channel]);
    // The notification above would be delivered before this one's answer if anyone listened.
    await notifier.query('SELECT 1');
    expect(told.events).toHaveLength(2);
  });

  it('keeps trying a database that refuses connections, and listens once it answers', async () => {
    const port = await freePort();
    const told = recorder();
    const subject = listener(`postgres://postgres@127.0.0.1:${port}/postgres`, told.handlers);
    await subject.start();
    expect(subject.isListening).toBe(false);
    await until(() => told.events.length >= 2, 'a second attempt');
    expect(told.events.every(([kind]) => kind === 'lost')).toBe(true);

    const relayed = await relay(port);
    try {
      await until(() => subject.isListening, 'the listener connected');
      expect(told.pids()).toHaveLength(1);
    } finally {
      await subject.stop();
      await relayed.close();
    }
  });

  it('keeps beating: a session that goes silent after several answered heartbeats is taken for lost too', async () => {
    const relayed = await relay(await freePort());
    const told = recorder();
    const subject = listener(relayed.url, told.handlers, { heartbeatMs: 50, queryTimeoutMs: 300 });
    const beats = jest.spyOn(Client.prototype, 'query');
    try {
      await subject.start();
      // LISTEN and the pid, then heartbeats answered one after the other.
      await until(() => beats.mock.calls.filter(([sql]) => sql === 'SELECT 1').length >= 3, 'three heartbeats');
      beats.mockRestore();
      relayed.silence();
      await until(() => told.pids().length === 2, 'a new session');
      expect(told.events.map(([kind]) => kind)).toEqual(['listening', 'lost', 'listening']);
    } finally {
      beats.mockRestore();
      await subject.stop();
      await relayed.close();
    }
  });

  it('tries no more once stopped while waiting to try again', async () => {
    const port = await freePort();
    const told = recorder();
    const subject = listener(`postgres://postgres@127.0.0.1:${port}/postgres`, told.handlers, { firstRetryMs: 200 });
    await subject.start();
    expect(told.events).toEqual([['lost', expect.any(String)]]);
    await subject.stop();
    // Postgres answers on that port now: a retry left pending would connect and listen.
    const relayed = await relay(port);
    try {
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(told.events).toHaveLength(1);
      expect(subject.isListening).toBe(false);
      expect(relayed.openClients()).toBe(0);
    } finally {
      await relayed.close();
    }
  });

  it('takes a session whose heartbeat goes unanswered for lost, and listens again on a new one', async () => {
    const relayed = await relay(await freePort());
    const told = recorder();
    const subject = listener(relayed.url, told.handlers, { heartbeatMs: 100, queryTimeoutMs: 300 });
    try {
      await subject.start();
      const [first] = told.pids();
      relayed.silence();
      await until(() => told.pids().length === 2, 'a new session');
      expect(told.events.map(([kind]) => kind)).toEqual(['listening', 'lost', 'listening']);
      expect(told.pids()[1]).not.toBe(first);
      // The silent session's socket is closed, not left to the kernel's retransmission timeout.
      await until(() => relayed.openClients() === 1, 'the silent connection closed');

      await notifier.query(`SELECT pg_notify($1, 'SHOP1')`, [channel]);
      await until(() => told.events.length === 4, 'the notification');
      expect(told.events[3]).toEqual(['notified', 'SHOP1']);
    } finally {
      await subject.stop();
      await relayed.close();
    }
  });
});
