import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  defaultMerchantSettings,
  MerchantContext,
  notificationSecretContext,
  RecordOperationMessage,
  RecordOperationReply,
  SUBJECTS,
} from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { createMessageClient } from '@gateway/platform';
import { createDatabase, dropDatabase, freePort, keptForAtRestScan, testInfra, waitFor, WebhookReceiver } from '@gateway/testing';
import { Client } from 'pg';
import { firstValueFrom } from 'rxjs';
import { readState, servicesRequestHasher } from '../support/e2e-state';
import { DIST, httpOk, StartedProcess, startApp } from '../support/processes';
import { startWebhookReceiver } from '../support/webhook-receivers';

jest.setTimeout(120_000);

const run = promisify(execFile);

/**
 * Webhook dispatchers as separate processes (order-transaction's image in dispatch mode, as
 * the order-transaction-dispatcher Deployment runs it), in a world of their own: a database
 * and NATS prefix only this file uses, a ledger process recording orders as services do, and
 * dispatchers this file starts, kills and stops.
 */
describe('webhook dispatcher processes', () => {
  const state = readState();
  const runId = randomBytes(3).toString('hex');
  const database = `${state.database ?? 'gw_e2e'}_wh${runId}`;
  const natsPrefix = `wh${runId}.`;
  const keys = `k1:${randomBytes(32).toString('base64')}`;
  const ring = SealingKeyRing.parse(keys, 'KEYS');
  const logDir = path.join(state.logDir, 'webhook-dispatchers');
  const processes: StartedProcess[] = [];
  let databaseUrl: string;
  let db: Client;
  let client: ReturnType<typeof createMessageClient>;
  let receiver: WebhookReceiver;

  function env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...state.appEnv['order-transaction'],
      DATABASE_URL: databaseUrl,
      NATS_SUBJECT_PREFIX: natsPrefix,
      WEBHOOK_SECRET_KEYS: keys,
      WEBHOOK_CA_FILE: state.webhookReceiverTls!.certFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '1000',
      WEBHOOK_TIMEOUT_MS: '20000',
      ...extra,
    };
  }

  async function start(label: string, mode: 'serve' | 'dispatch', extra: Record<string, string> = {}): Promise<StartedProcess> {
    const port = await freePort();
    const started = startApp('order-transaction', env({ ORDER_TRANSACTION_MODE: mode, HTTP_PORT: String(port), ...extra }), logDir, label);
    processes.push(started);
    await waitFor(() => httpOk(`http://127.0.0.1:${port}/health/ready`), { timeoutMs: 60_000, what: `${label} ready` });
    (started as StartedProcess & { port?: number }).port = port;
    return started;
  }

  const metricsOf = async (dispatcher: StartedProcess) =>
    (await fetch(`http://127.0.0.1:${(dispatcher as StartedProcess & { port: number }).port}/metrics`)).text();

  function merchant(): MerchantContext {
    const id = `WH${randomBytes(5).toString('hex').toUpperCase()}`;
    const sealed = ring.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext(id));
    return { id, mode: 'TEST', settings: { ...defaultMerchantSettings(), notifications: { enabled: true, secret: { current: sealed } } } };
  }

  /** A PAY recorded on a new order, as a service records it: one notification each. */
  async function recordPayments(who: MerchantContext, count: number): Promise<string[]> {
    const orders: string[] = [];
    for (let i = 0; i < count; i++) {
      const orderId = `o-${runId}-${randomBytes(4).toString('hex')}`;
      const message: RecordOperationMessage = {
        envelope: { merchant: who, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken: '1' },
        orderId,
        transactionId: 'pay-1',
        apiOperation: 'PAY',
        requestHash: servicesRequestHasher().hash({ apiOperation: 'PAY', orderId }),
        mode: 'CREATE',
        order: { currency: 'USD', notificationUrl: receiver.url() },
        transaction: { type: 'PAYMENT', amount: '1.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED' },
        response: {},
      };
      await firstValueFrom(client.send<RecordOperationReply>(`${natsPrefix}${SUBJECTS.orderTransaction.ledgerRecord}`, message));
      orders.push(orderId);
    }
    return orders;
  }

  /** `node dist/apps/order-transaction/src/main.js notifications ...`, as an operator runs it. */
  async function command(args: string[]): Promise<string> {
    const { stdout } = await run(process.execPath, [path.join(DIST, 'apps/order-transaction/src/main.js'), 'notifications', ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, WEBHOOK_SECRET_KEYS: keys, LOG_LEVEL: 'warn' },
    });
    return stdout;
  }

  async function outbox(merchantId: string) {
    const { rows } = await db.query(
      `SELECT id, status, attempts FROM order_transaction.notification_outbox WHERE merchant_id = $1 ORDER BY created_at`,
      [merchantId],
    );
    return rows as { id: string; status: string; attempts: number }[];
  }

  beforeAll(async () => {
    databaseUrl = await createDatabase(database);
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    receiver = await startWebhookReceiver();
    await start('wh-ledger', 'serve');
    client = createMessageClient({ profile: 'distributed', servers: [testInfra.natsUrl], subjectPrefix: '', requestTimeoutMs: 10_000, serviceName: 'e2e-webhooks' });
    await client.connect();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGTERM', 30_000)));
    await client?.close();
    await receiver?.stop();
    await db?.end();
    if (!keptForAtRestScan()) {
      await dropDatabase(database);
    }
  });

  it('never delivers one notification from two dispatchers at the same time, and both share the work', async () => {
    const who = merchant();
    const [a, b] = await Promise.all([start('wh-dispatcher-a', 'dispatch', { WEBHOOK_BATCH_SIZE: '2' }), start('wh-dispatcher-b', 'dispatch', { WEBHOOK_BATCH_SIZE: '2' })]);
    for (let i = 0; i < 20; i++) {
      receiver.answerNext({ status: 200, delayMs: 200 });
    }
    await recordPayments(who, 20);

    await waitFor(async () => (await outbox(who.id)).every((n) => n.status === 'DELIVERED'), { timeoutMs: 60_000, what: 'all 20 delivered' });
    const ids = (await outbox(who.id)).map((n) => n.id);
    expect(ids.every((id) => receiver.processed.has(id))).toBe(true);
    expect(receiver.maxConcurrentDeliveriesOfOneNotification).toBe(1);
    for (const dispatcher of [a, b]) {
      expect(await metricsOf(dispatcher)).toMatch(/gateway_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    }
    await Promise.all([a.stop(), b.stop()]);
  });

  it('loses nothing when a dispatcher is killed (SIGKILL) in the middle of a batch', async () => {
    const who = merchant();
    const doomed = await start('wh-dispatcher-doomed', 'dispatch', { WEBHOOK_BATCH_SIZE: '10' });
    // The receiver takes the notifications in but answers only after the dispatcher is dead.
    for (let i = 0; i < 6; i++) {
      receiver.answerNext({ status: 200, delayMs: 15_000 });
    }
    await recordPayments(who, 6);
    await waitFor(async () => (await outbox(who.id)).some((n) => receiver.deliveriesOf(n.id).length > 0), {
      timeoutMs: 30_000,
      what: 'the doomed dispatcher mid-batch',
    });
    const inFlight = (await outbox(who.id)).filter((n) => receiver.deliveriesOf(n.id).length > 0).map((n) => n.id);

    // The claim locks: advisory, class 0x6f757462 (notification-outbox.repository.ts).
    const claimLocks = async () =>
      (await db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1`, [0x6f757462])).rows[0].n as number;
    expect(await claimLocks()).toBeGreaterThan(0);

    await doomed.stop('SIGKILL');
    // Its claim died with its database session: every row is still due, no attempt recorded.
    await waitFor(async () => (await claimLocks()) === 0, { timeoutMs: 10_000, what: 'the killed claim to be released' });
    expect((await outbox(who.id)).map((n) => [n.status, n.attempts])).toEqual(Array.from({ length: 6 }, () => ['PENDING', 0]));

    const survivor = await start('wh-dispatcher-survivor', 'dispatch');
    await waitFor(async () => (await outbox(who.id)).every((n) => n.status === 'DELIVERED'), { timeoutMs: 60_000, what: 'redelivery by the survivor' });
    const ids = (await outbox(who.id)).map((n) => n.id);
    expect(ids.every((id) => receiver.processed.has(id))).toBe(true);
    // At least once on the wire: what was in flight at the kill was sent again.
    for (const id of inFlight) {
      expect(receiver.deliveriesOf(id).length).toBeGreaterThanOrEqual(2);
    }
    await waitFor(async () => /gateway_webhook_outbox_depth 0/.test(await metricsOf(survivor)), { what: 'an empty outbox gauge' });
    await survivor.stop();
  });

  it("lists a notification that ran out of retries and re-sends it, with order-transaction's notifications command", async () => {
    const who = merchant();
    receiver.answerNext({ status: 500 });
    const dispatcher = await start('wh-dispatcher-failing', 'dispatch');
    const [orderId] = await recordPayments(who, 1);
    const [row] = await outbox(who.id);
    // As if it had been retried for a day already: the next failure is its last.
    await db.query(`UPDATE order_transaction.notification_outbox SET window_started_at = now() - interval '25 hours' WHERE id = $1`, [row.id]);
    await waitFor(async () => (await outbox(who.id))[0].status === 'FAILED', { timeoutMs: 30_000, what: 'FAILED' });

    const listed = JSON.parse(await command(['list-failed', '--merchant', who.id, '--json']));
    expect(listed).toEqual([expect.objectContaining({ id: row.id, orderId, status: 'FAILED', lastResult: 'HTTP 500' })]);
    expect(await command(['resend', row.id])).toContain(row.id);
    await waitFor(async () => (await outbox(who.id))[0].status === 'DELIVERED', { timeoutMs: 30_000, what: 'the re-sent notification' });
    expect(receiver.processed.has(row.id)).toBe(true);
    await dispatcher.stop();
  });

  it('finishes the batch in hand before it stops on SIGTERM', async () => {
    const who = merchant();
    const dispatcher = await start('wh-dispatcher-draining', 'dispatch', { WEBHOOK_BATCH_SIZE: '10' });
    for (let i = 0; i < 3; i++) {
      receiver.answerNext({ status: 200, delayMs: 2_000 });
    }
    await recordPayments(who, 3);
    await waitFor(async () => (await outbox(who.id)).every((n) => receiver.deliveriesOf(n.id).length > 0), { timeoutMs: 30_000, what: 'the batch in flight' });

    expect(await dispatcher.stop('SIGTERM', 30_000)).toBe(0);
    expect((await outbox(who.id)).map((n) => [n.status, n.attempts])).toEqual(Array.from({ length: 3 }, () => ['DELIVERED', 1]));
  });
});
