import { createServer, Server, Socket, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { LedgerTestApp, newOrderId, operateAs, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';

/**
 * The ledger's Postgres going away while an acquirer call is in flight (a restart, a failover):
 * the service reaches it through a TCP relay the test cuts (every connection reset, new ones
 * refused) and puts back, as a failover looks from the client. The shared Postgres itself is
 * never touched.
 */
jest.setTimeout(40_000);

/** A TCP relay to Postgres that can be cut and put back on the same port. */
class CuttableRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Postgres gone: open connections reset, new ones refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) {
      socket.resetAndDestroy();
    }
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

const databaseUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://missing');
const relay = new CuttableRelay(databaseUrl.hostname, Number(databaseUrl.port || 5432));
let app: LedgerTestApp;
let direct: Client;

beforeAll(async () => {
  await relay.open();
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  app = await startLedgerTestApp({ DATABASE_URL: relayed.toString() });
  direct = new Client({ connectionString: databaseUrl.toString() });
  await direct.connect();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
  await direct?.end();
  await relay.cut();
});

const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } };

describe('the ledger\'s database restarting while the acquirer approves a payment', () => {
  it('records the approved PAY once the database is back, instead of leaving it PENDING for good', async () => {
    // The acquirer takes 1 s; the database is away from 0.3 s to 2.8 s: the reservation is written
    // before, the completion has to wait for it.
    const merchant = testMerchant({ testAcquirer: { latencyMs: 1_000 } });
    const orderId = newOrderId();
    const paying = operateAs(app, merchant, orderId, 'p1', 'PAY', { order: { amount: '12.00', currency: 'USD' }, sourceOfFunds: card }).then(
      (body) => ({ body }),
      (err: unknown) => ({ err }),
    );
    await sleep(300);
    await relay.cut();
    await sleep(2_500);
    await relay.open();

    const answer = await paying;
    expect(answer).toMatchObject({ body: { result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 12 } } });
    const rows = await direct.query(
      `SELECT result, gateway_code FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2`,
      [merchant.id, orderId],
    );
    expect(rows.rows).toEqual([{ result: 'SUCCESS', gateway_code: 'APPROVED' }]);
  });
});
