import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultMerchantSettings, MerchantContext, notificationSecretContext, RecordOperationMessage } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { createDatabase, dropDatabase, keptForAtRestScan, selfSignedCertificate, waitFor, WebhookReceiver } from '@gateway/testing';
import { LedgerTestApp, OperationSpec, recordMessage, startLedgerTestApp } from '../testing/ledger-test-app';

/**
 * A receiver that hangs must delay only its own notifications: the other merchants' go out at
 * their own pace, not at one delivery timeout per batch the hanging receiver's notifications
 * share with theirs (the head-of-line blocking a review measured: 9.3 s instead of 0.33 s).
 * A database of its own: the other files' dispatchers (other keys) must not claim these rows,
 * nor these dispatchers theirs, or timings would measure each other's retries.
 */
const database = `${process.env.TEST_DATABASE}_webhook_fairness`;
let databaseUrl: string;
const KEYS = `t1:${randomBytes(32).toString('base64')}`;
const ring = SealingKeyRing.parse(KEYS, 'KEYS');
const certificate = selfSignedCertificate();
const caFile = path.join(tmpdir(), `webhook-ca-${randomBytes(4).toString('hex')}.pem`);
writeFileSync(caFile, certificate.cert);

const TIMEOUT_MS = 3_000;

// Each test waits out at least one delivery timeout, or a dispatcher's shutdown does.
jest.setTimeout(30_000);

let ledger: LedgerTestApp;
const started: LedgerTestApp[] = [];
const receivers: { stop(): Promise<void> }[] = [];

/** A receiver that takes requests in and never answers (no timer left behind when it stops). */
class HangingReceiver {
  requests = 0;
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;
  private port = 0;

  async start(): Promise<void> {
    const server = createServer({ cert: certificate.cert, key: certificate.key }, (request) => {
      this.requests++;
      request.resume();
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  url(): string {
    return `https://localhost:${this.port}/hooks`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

async function hangingReceiver(): Promise<HangingReceiver> {
  const r = new HangingReceiver();
  await r.start();
  receivers.push(r);
  return r;
}

beforeAll(async () => {
  databaseUrl = await createDatabase(database);
  ledger = await startLedgerTestApp({ DATABASE_URL: databaseUrl });
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.running.shutdown('test done')));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

afterAll(async () => {
  await ledger?.running.shutdown('tests done');
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

function merchant(): MerchantContext {
  const id = `FAIR${randomBytes(5).toString('hex').toUpperCase()}`;
  const secret = ring.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext(id));
  return { id, mode: 'TEST', settings: { ...defaultMerchantSettings(), notifications: { enabled: true, secret: { current: secret } } } };
}

function pay(who: MerchantContext, url: string): RecordOperationMessage {
  const spec: OperationSpec = { merchant: who, orderId: `o-${randomBytes(5).toString('hex')}`, transactionId: 'p1', apiOperation: 'PAY', request: { apiOperation: 'PAY', amount: '1.00' } };
  return recordMessage(spec, {
    transaction: { type: 'PAYMENT', amount: '1.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED' },
    order: { currency: 'USD', notificationUrl: url },
  });
}

async function receiver(behaviour: { status: number }): Promise<WebhookReceiver> {
  const r = new WebhookReceiver(certificate, behaviour);
  await r.start();
  receivers.push(r);
  return r;
}

async function startDispatcher(env: Record<string, string> = {}): Promise<LedgerTestApp> {
  const app = await startLedgerTestApp({
    DATABASE_URL: databaseUrl,
    ORDER_TRANSACTION_MODE: 'dispatch',
    DATABASE_POOL_SIZE: '4',
    WEBHOOK_SECRET_KEYS: KEYS,
    WEBHOOK_CA_FILE: caFile,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_BATCH_SIZE: '5',
    // Long enough that the backed-off receiver is visibly left alone for the rest of the test.
    WEBHOOK_RETRY_BASE_MS: '60000',
    ...env,
  });
  started.push(app);
  return app;
}

async function rowsOf(merchantId: string): Promise<{ status: string; attempts: number; lastResult: string | null; due: boolean }[]> {
  return ledger.dataSource.query(
    `SELECT status, attempts, last_result AS "lastResult", next_attempt_at <= now() AS due
       FROM order_transaction.notification_outbox WHERE merchant_id = $1 ORDER BY created_at`,
    [merchantId],
  );
}

describe('a receiver that hangs', () => {
  it("delays only its own notifications: another merchant's are all delivered well within one delivery timeout", async () => {
    const hanging = await hangingReceiver();
    const fast = await receiver({ status: 200 });
    const slowMerchant = merchant();
    const fastMerchant = merchant();
    // Interleaved, so every claim in order of due time meets both.
    for (let i = 0; i < 20; i++) {
      await ledger.record(pay(slowMerchant, hanging.url()));
      await ledger.record(pay(fastMerchant, fast.url()));
    }

    await startDispatcher();
    const startedAt = Date.now();
    await waitFor(async () => fast.processed.size === 20, { timeoutMs: 30_000, intervalMs: 10, what: "the fast receiver's 20 notifications" });
    const took = Date.now() - startedAt;

    // None of them waited for a hanging delivery to time out (before the fix: three timeouts
    // and more, 9.3 s; now a few hundred milliseconds).
    expect(took).toBeLessThan(TIMEOUT_MS);
    await waitFor(async () => (await rowsOf(fastMerchant.id)).every((r) => r.status === 'DELIVERED'), { what: "the fast merchant's rows DELIVERED" });
    // The hanging receiver held no more than its share of the delivery slots.
    expect(hanging.requests).toBeLessThanOrEqual(4);
  });

  it('is backed off after it times out: its other notifications wait instead of taking a slot each for a timeout', async () => {
    const hanging = await hangingReceiver();
    const slowMerchant = merchant();
    for (let i = 0; i < 10; i++) {
      await ledger.record(pay(slowMerchant, hanging.url()));
    }
    await startDispatcher({ WEBHOOK_MAX_IN_FLIGHT_PER_TARGET: '2' });

    await waitFor(async () => (await rowsOf(slowMerchant.id)).some((r) => r.attempts > 0), { timeoutMs: 15_000, what: 'the first timeouts' });
    // Two attempts at once (the receiver's limit), both timed out; the eight others were never
    // sent and are no longer due.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rows = await rowsOf(slowMerchant.id);
    expect(hanging.requests).toBe(2);
    expect(rows.filter((r) => r.attempts === 1).map((r) => [r.status, r.lastResult])).toEqual([
      ['PENDING', 'TIMEOUT'],
      ['PENDING', 'TIMEOUT'],
    ]);
    expect(rows.filter((r) => r.attempts === 0).map((r) => r.due)).toEqual(Array.from({ length: 8 }, () => false));
  });
});
