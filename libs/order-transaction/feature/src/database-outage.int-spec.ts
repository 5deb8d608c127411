import { createServer, Server, Socket, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { TestAcquirer } from '@gateway/acquirer';
import { TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';
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

  /** The next client message matching it loses its connection, and with it its reply or itself (breakOn). */
  private breaking: { matches: (sent: Buffer) => boolean; lose: 'REPLY' | 'REQUEST'; done: () => void } | null = null;

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      let losingReply = false;
      const breakBoth = () => {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      };
      client.on('data', (sent: Buffer) => {
        const breaking = this.breaking?.matches(sent) ? this.breaking : null;
        if (breaking) {
          this.breaking = null;
          breaking.done();
        }
        if (breaking?.lose === 'REQUEST') {
          breakBoth();
          return;
        }
        upstream.write(sent);
        losingReply ||= breaking !== null;
      });
      upstream.on('data', (reply: Buffer) => {
        if (losingReply) {
          // Postgres has run (and committed) what it answers; the client never learns it.
          breakBoth();
          return;
        }
        client.write(reply);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /**
   * The next message a client sends that `matches` (its bytes: a statement's text, or its
   * parameters) loses its connection: with `REPLY`, after Postgres got it, and answered, so
   * the statement ran and, if it commits (a COMMIT, a statement on its own), committed, with
   * the answer never delivered; with `REQUEST`, before Postgres got it. Other connections, and
   * new ones, carry on. Resolves when it happened.
   */
  breakOn(matches: (sent: Buffer) => boolean, lose: 'REPLY' | 'REQUEST'): Promise<void> {
    return new Promise((done) => (this.breaking = { matches, lose, done }));
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
    // The acquirer takes 2 s; the database goes away once the acquirer has the payment, so its
    // approval comes back to a database that is still away for another half second. Not as soon
    // as the reservation's row shows: Postgres shows a commit before the relay has passed its
    // answer on, and a cut in between loses that answer, which the ledger rightly answers
    // SERVER_BUSY (the reservation may have committed: the case the next describe covers).
    const merchant = testMerchant({ testAcquirer: { latencyMs: 2_000 } });
    const orderId = newOrderId();
    const pays = jest.spyOn(TestAcquirer.prototype, 'pay');
    const paying = operateAs(app, merchant, orderId, 'p1', 'PAY', { order: { amount: '12.00', currency: 'USD' }, sourceOfFunds: card }).then(
      (body) => ({ body }),
      (err: unknown) => ({ err }),
    );
    await waitFor(async () => pays.mock.calls.length === 1, { timeoutMs: 10_000, intervalMs: 10, what: 'the PAY sent to the acquirer' });
    pays.mockRestore();
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

/** A reservation's write on `orderId`: its parameters carry the order id and the PENDING result (no statement's text holds that word). */
const reservationOn =
  (orderId: string) =>
  (sent: Buffer): boolean =>
    sent.includes(orderId) && sent.includes('PENDING');

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

async function transactionRows(merchantId: string, orderId: string): Promise<unknown[]> {
  const rows = await direct.query(
    `SELECT transaction_id, result, gateway_code FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    [merchantId, orderId],
  );
  return rows.rows;
}

describe("a reservation's write whose answer is lost with its connection (database-unavailable-is-server-busy.md, 2026-11-26)", () => {
  const payment = { order: { amount: '12.00', currency: 'USD' }, sourceOfFunds: card };

  afterEach(() => jest.restoreAllMocks());

  it('carries a PAY on from the reservation that committed: SUCCESS, the totals, one acquirer call', async () => {
    const pays = jest.spyOn(TestAcquirer.prototype, 'pay');
    const merchant = testMerchant();
    const orderId = newOrderId();
    const broken = relay.breakOn(reservationOn(orderId), 'REPLY');

    const answer = await operateAs(app, merchant, orderId, 'p1', 'PAY', payment);
    await broken;
    expect(answer).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 12 } });
    expect(pays).toHaveBeenCalledTimes(1);
    expect(await transactionRows(merchant.id, orderId)).toEqual([{ transaction_id: 'p1', result: 'SUCCESS', gateway_code: 'APPROVED' }]);
    // Before the change: 503 SERVER_BUSY, no acquirer call, and this replay answered PENDING.
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payment)).toMatchObject({ result: 'SUCCESS' });
    expect(pays).toHaveBeenCalledTimes(1);
  });

  it("carries a linked REFUND on from its reservation on the order: SUCCESS, the order's refunded total, one acquirer call", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', { ...payment, order: { amount: '100.00', currency: 'USD' } })).toMatchObject({ result: 'SUCCESS' });
    const refunds = jest.spyOn(TestAcquirer.prototype, 'refund');
    const broken = relay.breakOn(reservationOn(orderId), 'REPLY');
    const refund = { transaction: { amount: '30.00', currency: 'USD' } };

    const answer = await operateAs(app, merchant, orderId, 'r1', 'REFUND', refund);
    await broken;
    expect(answer).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 100, totalRefundedAmount: 30 },
    });
    expect(refunds).toHaveBeenCalledTimes(1);
    expect(await transactionRows(merchant.id, orderId)).toEqual([
      { transaction_id: 'p1', result: 'SUCCESS', gateway_code: 'APPROVED' },
      { transaction_id: 'r1', result: 'SUCCESS', gateway_code: 'APPROVED' },
    ]);
    expect(await operateAs(app, merchant, orderId, 'r1', 'REFUND', refund)).toMatchObject({ result: 'SUCCESS' });
    expect(refunds).toHaveBeenCalledTimes(1);
  });

  it('answers SERVER_BUSY when the reservation never reached the database, and the retry reserves afresh', async () => {
    const pays = jest.spyOn(TestAcquirer.prototype, 'pay');
    const merchant = testMerchant();
    const orderId = newOrderId();
    const broken = relay.breakOn(reservationOn(orderId), 'REQUEST');

    const err = await rejectionOf(operateAs(app, merchant, orderId, 'p1', 'PAY', payment));
    await broken;
    expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503 });
    expect(pays).not.toHaveBeenCalled();
    expect(await transactionRows(merchant.id, orderId)).toEqual([]);

    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payment)).toMatchObject({ result: 'SUCCESS' });
    expect(pays).toHaveBeenCalledTimes(1);
  });
});
