import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultMerchantSettings, JsonObject, MerchantContext, MerchantMode, notificationSecretContext, RecordOperationMessage, verifyNotificationSignature } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { NotificationOutbox } from '@gateway/order-transaction/data-access';
import { Metrics, PersonalDataRetention } from '@gateway/platform';
import { selfSignedCertificate, SelfSignedCertificate, waitFor, WebhookReceiver } from '@gateway/testing';
import { runNotificationsCommand } from './notifications.command';
import { runOperatorCommand } from './operator-commands';
import { LedgerTestApp, newOrderId, OperationSpec, recordMessage, startLedgerTestApp } from './testing/ledger-test-app';

/**
 * Webhook notifications end to end inside order-transaction: the ledger (real handlers, real
 * Postgres) writes the outbox, dispatcher processes' modules (ORDER_TRANSACTION_MODE=dispatch,
 * their own database pools) deliver over real HTTPS to a local receiver whose self-signed
 * certificate they trust through WEBHOOK_CA_FILE, the explicit test configuration.
 */
const KEYS = `t1:${randomBytes(32).toString('base64')}`;
const ring = SealingKeyRing.parse(KEYS, 'KEYS');

let ledger: LedgerTestApp;
let certificate: SelfSignedCertificate;
let caFile: string;
const started: LedgerTestApp[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  certificate = selfSignedCertificate();
  caFile = path.join(tmpdir(), `webhook-ca-${randomBytes(4).toString('hex')}.pem`);
  writeFileSync(caFile, certificate.cert);
  ledger = await startLedgerTestApp();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.running.shutdown('test done')));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

afterAll(async () => {
  await ledger?.running.shutdown('tests done');
});

/** A dispatcher as its Deployment runs it: the module in dispatch mode, fast timings for tests. */
async function startDispatcher(env: Record<string, string> = {}): Promise<LedgerTestApp> {
  const app = await startLedgerTestApp({
    ORDER_TRANSACTION_MODE: 'dispatch',
    DATABASE_POOL_SIZE: '4',
    WEBHOOK_SECRET_KEYS: KEYS,
    WEBHOOK_CA_FILE: caFile,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_MAX_DELAY_MS: '400',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_BATCH_SIZE: '5',
    ...env,
  });
  started.push(app);
  return app;
}

async function receiver(normally = { status: 200 }): Promise<WebhookReceiver> {
  const r = new WebhookReceiver(certificate, normally);
  await r.start();
  receivers.push(r);
  return r;
}

interface NotifiedMerchant {
  context: MerchantContext;
  secret: string;
}

function merchantWithNotifications(mode: MerchantMode = 'TEST', enabled = true): NotifiedMerchant {
  const id = `WH${randomBytes(6).toString('hex').toUpperCase()}`;
  const secret = randomBytes(32).toString('base64url');
  const defaults = defaultMerchantSettings();
  return {
    secret,
    context: {
      id,
      mode,
      settings: {
        ...defaults,
        notifications: { enabled, secret: { current: ring.seal(new Secret(secret), notificationSecretContext(id)) } },
      },
    },
  };
}

function pay(merchant: MerchantContext, orderId: string, transactionId: string, amount: string, notificationUrl?: string): RecordOperationMessage {
  const spec: OperationSpec = { merchant, orderId, transactionId, apiOperation: 'PAY', request: { apiOperation: 'PAY', amount } };
  return recordMessage(spec, {
    transaction: { type: 'PAYMENT', amount, currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED' },
    order: { currency: 'USD', ...(notificationUrl ? { notificationUrl } : {}) },
    response: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } } },
  });
}

function refund(merchant: MerchantContext, orderId: string, transactionId: string, amount: string): RecordOperationMessage {
  const spec: OperationSpec = { merchant, orderId, transactionId, apiOperation: 'REFUND', request: { apiOperation: 'REFUND', amount } };
  return recordMessage(spec, { transaction: { type: 'REFUND', amount, currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED' } });
}

async function outboxRows(merchantId: string) {
  return ledger.dataSource.query(
    `SELECT id, order_id AS "orderId", transaction_id AS "transactionId", status, attempts, payload, url, last_result AS "lastResult"
       FROM order_transaction.notification_outbox WHERE merchant_id = $1 ORDER BY created_at, transaction_id`,
    [merchantId],
  ) as Promise<{ id: string; orderId: string; transactionId: string; status: string; attempts: number; payload: JsonObject; url: string; lastResult: string | null }[]>;
}

const statusOf = async (id: string) => (await ledger.dataSource.query('SELECT status FROM order_transaction.notification_outbox WHERE id = $1', [id]))[0]?.status;

describe('the outbox writer (inside the ledger record)', () => {
  it('writes one notification per order change, with the order and the transaction as recorded', async () => {
    const { context } = merchantWithNotifications();
    const orderId = newOrderId();
    await ledger.record(pay(context, orderId, 'p1', '10.00', 'https://merchant.example/hooks'));
    await ledger.record(refund(context, orderId, 'r1', '4.00'));

    const rows = await outboxRows(context.id);
    expect(rows.map((r) => [r.transactionId, r.status, r.url])).toEqual([
      ['p1', 'PENDING', 'https://merchant.example/hooks'],
      ['r1', 'PENDING', 'https://merchant.example/hooks'],
    ]);
    expect(rows[1].payload).toMatchObject({
      merchant: context.id,
      order: { id: orderId, status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 10, totalRefundedAmount: 4 },
      transaction: { id: 'r1', type: 'REFUND', amount: 4, currency: 'USD' },
      result: 'SUCCESS',
    });
    expect(JSON.stringify(rows)).not.toContain('5123450000000008');
  });

  it('writes nothing when notifications are off, when the order has no URL, for a replay, or when the record is refused', async () => {
    const off = merchantWithNotifications('TEST', false).context;
    await ledger.record(pay(off, newOrderId(), 'p1', '1.00', 'https://merchant.example/hooks'));
    expect(await outboxRows(off.id)).toEqual([]);

    const { context } = merchantWithNotifications();
    await ledger.record(pay(context, newOrderId(), 'p1', '1.00'));
    expect(await outboxRows(context.id)).toEqual([]);

    const orderId = newOrderId();
    const first = pay(context, orderId, 'p2', '2.00', 'https://merchant.example/hooks');
    await ledger.record(first);
    await ledger.record(first);
    await expect(ledger.record(refund(context, orderId, 'r-too-much', '2.01'))).rejects.toMatchObject({ field: 'transaction.amount' });
    expect((await outboxRows(context.id)).map((r) => r.transactionId)).toEqual(['p2']);
  });

  it('dates each change after the one before, even from a clock behind, so receivers can order notifications by order.lastUpdatedTime', async () => {
    const { context } = merchantWithNotifications();
    const orderId = newOrderId();
    await ledger.record(pay(context, orderId, 'p1', '10.00', 'https://merchant.example/hooks'));
    const lastUpdated = (payload: JsonObject) => Date.parse((payload.order as JsonObject).lastUpdatedTime as string);
    const paid = lastUpdated((await outboxRows(context.id))[0].payload);
    // The refund recorded by a replica whose clock is a minute behind the one that recorded the payment.
    const behind = jest.spyOn(Date, 'now').mockReturnValue(paid - 60_000);
    try {
      await ledger.record(refund(context, orderId, 'r1', '4.00'));
    } finally {
      behind.mockRestore();
    }
    const rows = await outboxRows(context.id);
    expect(rows.map((r) => r.transactionId)).toEqual(['p1', 'r1']);
    expect(lastUpdated(rows[1].payload)).toBeGreaterThan(paid);
  });

  it('records the order but writes no notification when notifications are on without a secret', async () => {
    const { context } = merchantWithNotifications();
    const unsigned: MerchantContext = { ...context, settings: { ...context.settings, notifications: { enabled: true } } };
    await ledger.record(pay(unsigned, newOrderId(), 'p1', '1.00', 'https://merchant.example/hooks'));
    expect(await outboxRows(unsigned.id)).toEqual([]);
  });
});

describe('the dispatcher', () => {
  it('delivers each order change once, signed with the merchant\'s secret and identified for de-duplication', async () => {
    const hook = await receiver();
    const { context, secret } = merchantWithNotifications();
    const orderId = newOrderId();
    await ledger.record(pay(context, orderId, 'p1', '10.00', hook.url()));
    await ledger.record(refund(context, orderId, 'r1', '10.00'));
    await startDispatcher();

    await waitFor(async () => hook.processed.size === 2, { timeoutMs: 15_000, what: 'two notifications' });
    const rows = await outboxRows(context.id);
    expect(hook.wire.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
    for (const delivery of hook.wire) {
      expect(delivery.attempt).toBe(1);
      expect(delivery.headers['x-notification-secret']).toBe(secret);
      expect(delivery.headers['content-type']).toBe('application/json; charset=utf-8');
      const valid = verifyNotificationSignature(delivery.headers['x-notification-signature'], {
        secret,
        notificationId: delivery.id,
        body: delivery.body,
        nowSeconds: Math.floor(Date.now() / 1000),
        toleranceSeconds: 300,
      });
      expect(valid).toBe(true);
    }
    const bodies = hook.wire.map((r) => JSON.parse(r.body)).sort((a, b) => a.transaction.id.localeCompare(b.transaction.id));
    expect(bodies.map((b) => [b.transaction.id, b.order.status])).toEqual([
      ['p1', 'CAPTURED'],
      ['r1', 'REFUNDED'],
    ]);
    // Keys sorted at every level, as every response of the gateway.
    expect(hook.wire[0].body.indexOf('"merchant"')).toBeLessThan(hook.wire[0].body.indexOf('"order"'));
    await waitFor(async () => (await outboxRows(context.id)).every((r) => r.status === 'DELIVERED'), { what: 'rows DELIVERED' });
  });

  it('sends the current secret during a rotation and signs with the previous one too until it expires', async () => {
    const hook = await receiver();
    const { context, secret } = merchantWithNotifications();
    const previous = randomBytes(32).toString('base64url');
    const rotated = (previousValidUntil: Date): MerchantContext => ({
      ...context,
      settings: {
        ...context.settings,
        notifications: {
          enabled: true,
          secret: {
            current: context.settings.notifications.secret!.current,
            previous: ring.seal(new Secret(previous), notificationSecretContext(context.id)),
            previousValidUntil: previousValidUntil.toISOString(),
          },
        },
      },
    });
    await ledger.record(pay(rotated(new Date(Date.now() + 3_600_000)), newOrderId(), 'p-during', '1.00', hook.url()));
    await ledger.record(pay(rotated(new Date(Date.now() - 1_000)), newOrderId(), 'p-after', '1.00', hook.url()));
    await startDispatcher();

    await waitFor(async () => hook.processed.size === 2, { timeoutMs: 15_000, what: 'two notifications' });
    const signedWith = (delivery: (typeof hook.wire)[number], key: string) =>
      verifyNotificationSignature(delivery.headers['x-notification-signature'], {
        secret: key,
        notificationId: delivery.id,
        body: delivery.body,
        nowSeconds: Math.floor(Date.now() / 1000),
        toleranceSeconds: 300,
      });
    const byTransaction: Record<string, (typeof hook.wire)[number]> = Object.fromEntries(
      hook.wire.map((delivery) => [JSON.parse(delivery.body).transaction.id, delivery]),
    );
    for (const delivery of Object.values(byTransaction)) {
      expect(delivery.headers['x-notification-secret']).toBe(secret);
    }
    expect([signedWith(byTransaction['p-during'], secret), signedWith(byTransaction['p-during'], previous)]).toEqual([true, true]);
    expect([signedWith(byTransaction['p-after'], secret), signedWith(byTransaction['p-after'], previous)]).toEqual([true, false]);
  });

  it('retries a receiver that is down for several attempts; once up, the notification is processed once, though sent more than once', async () => {
    const hook = await receiver();
    await hook.stop();
    const { context } = merchantWithNotifications();
    await ledger.record(pay(context, newOrderId(), 'p1', '5.00', hook.url()));
    const [row] = await outboxRows(context.id);
    await startDispatcher({ WEBHOOK_TIMEOUT_MS: '1000' });

    // Down: connections refused for a few attempts.
    await waitFor(async () => (await outboxRows(context.id))[0].attempts >= 3, { timeoutMs: 15_000, what: 'three refused attempts' });
    expect((await outboxRows(context.id))[0].lastResult).toBe('ECONNREFUSED');
    // Up again, but failing twice, then accepting so slowly that the dispatcher gives up on the
    // answer and sends again: the receiver has processed it once already.
    hook.answerNext({ status: 503 }, { status: 503 }, { status: 200, delayMs: 1_500 });
    await hook.start();

    await waitFor(async () => (await statusOf(row.id)) === 'DELIVERED', { timeoutMs: 20_000, what: 'delivery after the outage' });
    expect(hook.processed.size).toBe(1);
    expect(hook.processed.get(row.id)).toBeDefined();
    const onTheWire = hook.deliveriesOf(row.id);
    expect(onTheWire.length).toBeGreaterThanOrEqual(4);
    expect(onTheWire.map((r) => r.attempt)).toEqual([...onTheWire.map((r) => r.attempt)].sort((a, b) => a - b));
    expect(onTheWire[0].attempt).toBeGreaterThanOrEqual(4);
  });

  it('shares the outbox between two dispatchers without ever delivering one notification twice at the same time', async () => {
    const hook = await receiver({ status: 200 });
    const { context } = merchantWithNotifications();
    // Both run before anything is due, and neither can take more than two at a time, so the
    // work is shared whichever started first.
    const twoAtATime = { WEBHOOK_WORKERS: '1', WEBHOOK_BATCH_SIZE: '2' };
    const [a, b] = await Promise.all([startDispatcher(twoAtATime), startDispatcher(twoAtATime)]);
    for (let i = 0; i < 12; i++) {
      // Slow answers and failures keep notifications claimed long and due again often.
      hook.answerNext({ status: 200, delayMs: 150 }, { status: 503, delayMs: 100 });
    }
    for (let i = 0; i < 12; i++) {
      await ledger.record(pay(context, newOrderId(), `p${i}`, '1.00', hook.url()));
    }

    await waitFor(async () => (await outboxRows(context.id)).every((r) => r.status === 'DELIVERED'), { timeoutMs: 30_000, what: 'all delivered' });
    expect(hook.processed.size).toBe(12);
    expect(hook.maxConcurrentDeliveriesOfOneNotification).toBe(1);
    const worked = async (app: LedgerTestApp) => {
      const metric = await app.running.app.get(Metrics).registry.getSingleMetricAsString('gateway_webhook_deliveries_total');
      return /outcome="delivered"} [1-9]/.test(metric);
    };
    expect([await worked(a), await worked(b)]).toEqual([true, true]);
  });

  it('marks a notification FAILED once its retry window is over; the command lists it and re-sends it', async () => {
    const hook = await receiver({ status: 500 });
    const { context } = merchantWithNotifications();
    await ledger.record(pay(context, newOrderId(), 'p1', '5.00', hook.url()));
    const [row] = await outboxRows(context.id);
    // As if it had been retried for 24 hours already.
    await ledger.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET window_started_at = now() - interval '24 hours 1 minute', attempts = 30 WHERE id = $1`,
      [row.id],
    );
    const dispatcher = await startDispatcher();
    await waitFor(async () => (await statusOf(row.id)) === 'FAILED', { timeoutMs: 10_000, what: 'FAILED' });
    expect(hook.deliveriesOf(row.id)).toHaveLength(1);

    const outbox = NotificationOutbox.over(ledger.dataSource);
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(`ERR ${t}`) };
    expect(await runNotificationsCommand(['list-failed', '--merchant', context.id, '--json'], outbox, io, () => ring)).toBe(0);
    expect(JSON.parse(out.pop()!)).toEqual([
      expect.objectContaining({ id: row.id, merchantId: context.id, transactionId: 'p1', status: 'FAILED', attempts: 31, lastResult: 'HTTP 500' }),
    ]);

    hook.answerNext({ status: 200 });
    expect(await runNotificationsCommand(['resend', row.id], outbox, io, () => ring)).toBe(0);
    expect(out.pop()).toBe(`Queued again: ${row.id}`);
    await waitFor(async () => (await statusOf(row.id)) === 'DELIVERED', { timeoutMs: 10_000, what: 're-sent delivery' });
    expect(hook.processed.has(row.id)).toBe(true);
    const registry = dispatcher.running.app.get(Metrics).registry;
    expect(await registry.getSingleMetricAsString('gateway_webhook_outbox_depth')).toMatch(/gateway_webhook_outbox_depth \d+/);
    // The HPA's metric (k8s/base/apps/order-transaction-dispatcher).
    expect(await registry.getSingleMetricAsString('gateway_webhook_outbox_due')).toMatch(/gateway_webhook_outbox_due \d+/);
  });

  it('refuses to resend a notification whose secret is sealed under a webhook key since dropped, queuing nothing, and resends it once the key is back', async () => {
    const { context } = merchantWithNotifications();
    await ledger.record(pay(context, newOrderId(), 'p1', '5.00', 'https://merchant.example/hooks'));
    const [row] = await outboxRows(context.id);
    const failed = `UPDATE order_transaction.notification_outbox SET status = 'FAILED', attempts = 31, last_result = 'HTTP 500', last_attempt_at = now() WHERE id = $1`;
    await ledger.dataSource.query(failed, [row.id]);
    const stored = async () => (await outboxRows(context.id)).map((r) => [r.status, r.attempts, r.lastResult]);
    // The rotation went on to its end: a new key first, and t1, which sealed this notification's secret, dropped.
    const next = `t2:${randomBytes(32).toString('base64')}`;

    // As `main.js notifications ...` runs it: configuration from the environment, its own connection.
    const cli = async (argv: string[], keys: string) => {
      const out: string[] = [];
      const err: string[] = [];
      const env = { DATABASE_URL: process.env.TEST_DATABASE_URL, WEBHOOK_SECRET_KEYS: keys };
      const code = await runOperatorCommand('notifications', argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    for (const argv of [['resend', row.id], ['resend', '--merchant', context.id]]) {
      const refused = await cli(argv, next);
      expect([argv, refused.code, refused.out]).toEqual([argv, 1, '']);
      expect(refused.err).toContain('error: nothing was queued');
      expect(refused.err).toContain(`${row.id} (merchant ${context.id}): its secret is sealed under webhook key t1, which was dropped from WEBHOOK_SECRET_KEYS`);
      expect(refused.err).toContain('put the dropped key (t1) back in WEBHOOK_SECRET_KEYS after the current one (t2)');
      expect(refused.err).not.toContain(next.slice(3));
      expect(await stored()).toEqual([['FAILED', 31, 'HTTP 500']]);
    }

    // Without the keys it cannot tell: a configuration error (the main's exit code 78), nothing queued.
    await expect(cli(['resend', row.id], '')).rejects.toThrow('WEBHOOK_SECRET_KEYS: is required to resend notifications');
    expect(await stored()).toEqual([['FAILED', 31, 'HTTP 500']]);

    const resent = await cli(['resend', row.id], `${next},${KEYS}`);
    expect(resent).toEqual({ code: 0, out: `Queued again: ${row.id}`, err: '' });
    expect(await stored()).toEqual([['PENDING', 0, 'HTTP 500']]);
  });

  it('refuses to deliver to a private or loopback address for a live merchant, and for test merchants unless configured', async () => {
    const hook = await receiver();
    const live = merchantWithNotifications('LIVE').context;
    const test = merchantWithNotifications('TEST').context;
    await ledger.record(pay(live, newOrderId(), 'p1', '1.00', hook.url()));
    await ledger.record(pay(live, newOrderId(), 'p2', '1.00', hook.url().replace('localhost', '127.0.0.1')));
    await ledger.record(pay(test, newOrderId(), 'p3', '1.00', hook.url()));
    await startDispatcher({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });

    await waitFor(async () => [...(await outboxRows(live.id)), ...(await outboxRows(test.id))].every((r) => r.attempts >= 1), {
      timeoutMs: 10_000,
      what: 'first attempts',
    });
    const results = [...(await outboxRows(live.id)), ...(await outboxRows(test.id))].map((r) => [r.transactionId, r.status, r.lastResult]);
    expect(results).toEqual([
      ['p1', 'PENDING', 'REFUSED_NON_PUBLIC_ADDRESS'],
      ['p2', 'PENDING', 'REFUSED_NON_PUBLIC_ADDRESS'],
      ['p3', 'PENDING', 'REFUSED_NON_PUBLIC_ADDRESS'],
    ]);
    expect(hook.wire).toEqual([]);
  });

  it('refuses a live merchant\'s private address even where test merchants may use one', async () => {
    const hook = await receiver();
    const live = merchantWithNotifications('LIVE').context;
    const test = merchantWithNotifications('TEST').context;
    await ledger.record(pay(live, newOrderId(), 'p1', '1.00', hook.url()));
    await ledger.record(pay(test, newOrderId(), 'p2', '1.00', hook.url()));
    await startDispatcher({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

    await waitFor(async () => (await outboxRows(test.id)).every((r) => r.status === 'DELIVERED'), { timeoutMs: 10_000, what: 'test merchant delivered' });
    await waitFor(async () => (await outboxRows(live.id)).every((r) => r.attempts >= 1), { timeoutMs: 10_000, what: 'live first attempt' });
    expect((await outboxRows(live.id)).map((r) => [r.transactionId, r.status, r.lastResult])).toEqual([['p1', 'PENDING', 'REFUSED_NON_PUBLIC_ADDRESS']]);
    expect(hook.wire.map((r) => r.id)).toEqual((await outboxRows(test.id)).map((r) => r.id));
  });
});

describe('what counts as delivered', () => {
  it('only a 2xx answer: a redirect is not followed and a slow answer times out, both retried', async () => {
    const hook = await receiver();
    hook.answerNext({ status: 302 }, { status: 200, delayMs: 1_500 });
    const { context } = merchantWithNotifications();
    await ledger.record(pay(context, newOrderId(), 'p1', '1.00', hook.url()));
    const [row] = await outboxRows(context.id);
    await startDispatcher({ WEBHOOK_TIMEOUT_MS: '1000' });

    await waitFor(async () => (await statusOf(row.id)) === 'DELIVERED', { timeoutMs: 15_000, what: 'delivery' });
    expect(hook.deliveriesOf(row.id).map((d) => d.attempt)).toEqual([1, 2, 3]);
    const results = await ledger.dataSource.query('SELECT attempts, last_result AS "lastResult" FROM order_transaction.notification_outbox WHERE id = $1', [row.id]);
    expect(results).toEqual([{ attempts: 3, lastResult: 'HTTP 200' }]);
  });
});

describe('retention', () => {
  it('deletes delivered notifications older than the retention, and only those', async () => {
    const { context } = merchantWithNotifications();
    await ledger.record(pay(context, newOrderId(), 'p1', '1.00', 'https://merchant.example/hooks'));
    await ledger.record(pay(context, newOrderId(), 'p2', '1.00', 'https://merchant.example/hooks'));
    const [old, pending] = await outboxRows(context.id);
    await ledger.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET status = 'DELIVERED', delivered_at = now() - interval '31 days' WHERE id = $1`,
      [old.id],
    );
    const purged = await NotificationOutbox.over(ledger.dataSource).purgeDelivered(new Date(Date.now() - 30 * 86_400_000), 1_000);
    expect(purged).toBeGreaterThanOrEqual(1);
    expect((await outboxRows(context.id)).map((r) => r.id)).toEqual([pending.id]);
  });
});

describe('a dispatcher\'s configuration', () => {
  it('refuses to start without the keys that open notification secrets, naming the variable', async () => {
    await expect(startDispatcher({ WEBHOOK_SECRET_KEYS: '' })).rejects.toThrow(/WEBHOOK_SECRET_KEYS: is required when ORDER_TRANSACTION_MODE is dispatch/);
    await expect(startDispatcher({ WEBHOOK_SECRET_KEYS: 'k1:short' })).rejects.toThrow(/WEBHOOK_SECRET_KEYS/);
  });
});

describe('a dispatcher and the payer personal-data retention', () => {
  it('runs no retention pass and exports no retention setting: the request-serving processes do', async () => {
    const dispatcher = await startDispatcher();
    expect(await dispatcher.running.app.get(PersonalDataRetention).runNow()).toEqual({});
    const series = async (app: LedgerTestApp) =>
      (await app.metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('gateway_personal_data_retention_days{'));
    expect(await series(dispatcher)).toEqual([]);
    // The ledger beside it (serve) exports its setting.
    expect(await series(ledger)).toEqual(['gateway_personal_data_retention_days{pass="order-transaction"} 600']);
  });
});
