import { randomBytes, randomUUID } from 'node:crypto';
import { NOTIFICATION_HEADERS, notificationSecretContext } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { NotificationClaims, NotificationOutbox, ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { createLogger, migrateSchema, serviceDataSourceOptions } from '@gateway/platform';
import { createDatabase, dropDatabase, interleavedDataSource, keptForAtRestScan } from '@gateway/testing';
import { DataSource } from 'typeorm';
import { DispatchNotifications } from './dispatch-notifications.use-case';
import type { DeliveryResult, WebhookDelivery, WebhookSender } from './webhook-sender';

/**
 * One dispatcher process's per-receiver limit while its workers, and other dispatchers, claim
 * the same rows at the same time, against Postgres. The claims are interleaved at a given
 * statement by holding it back (as the outbox's int-spec does), so each race is deterministic.
 * A database of its own: no other file's dispatcher may claim these rows.
 */
const database = `${process.env.TEST_DATABASE}_dispatch_races`;
const ring = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');
const TARGET = 'https://busy.example';
let dataSource: DataSource;
let outbox: NotificationOutbox;

beforeAll(async () => {
  const url = await createDatabase(database);
  dataSource = await new DataSource(serviceDataSourceOptions(ORDER_TRANSACTION_SCHEMA, { url, poolSize: 6, statementTimeoutMs: 30_000, applicationName: 'int-dispatch-races' })).initialize();
  await migrateSchema(dataSource);
  outbox = NotificationOutbox.over(dataSource);
});

beforeEach(async () => {
  await dataSource.query('DELETE FROM order_transaction.notification_outbox');
});

afterAll(async () => {
  await dataSource?.destroy();
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

/** `count` due notifications to TARGET, oldest due first. */
async function due(count: number): Promise<string[]> {
  const merchantId = `DR${randomBytes(5).toString('hex').toUpperCase()}`;
  const sealedSecret = ring.seal(new Secret('s'), notificationSecretContext(merchantId));
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    await outbox.add(dataSource.manager, {
      id, merchantId, merchantMode: 'TEST', orderId: `o-${i}`, transactionId: 'p1', apiOperation: 'PAY',
      url: `${TARGET}/hooks?n=${i}`, payload: {}, sealedSecret, sealedPreviousSecret: null,
      at: new Date(Date.UTC(2000, 0, 1, 0, 0, i)),
    });
  }
  return ids;
}

/** A receiver that answers nothing until told to, and counts what it has in flight at most. */
class HeldReceiver implements WebhookSender {
  inFlight = 0;
  mostInFlight = 0;
  readonly sent: string[] = [];
  private answer!: () => void;
  private answered = new Promise<void>((resolve) => (this.answer = resolve));

  async send(delivery: WebhookDelivery): Promise<DeliveryResult> {
    this.sent.push(delivery.headers[NOTIFICATION_HEADERS.id]);
    this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
    await this.answered;
    this.inFlight--;
    return { delivered: true, result: 'HTTP 200' };
  }

  answerAll(): void {
    this.answer();
  }
}

function dispatcher(source: DataSource, receiver: WebhookSender, limits: { batchSize: number; maxInFlightPerTarget: number }): DispatchNotifications {
  return new DispatchNotifications(
    NotificationOutbox.over(source),
    receiver,
    ring,
    { ...limits, retry: { baseDelayMs: 1_000, maxDelayMs: 4_000, windowMs: 3_600_000 }, allowNonPublicForTestMerchants: true },
    createLogger({ service: 'test', level: 'silent' }),
  );
}

const DUE_READ = /WITH head AS MATERIALIZED/;

it("keeps a receiver's limit over all the workers of a process, whichever claims first", async () => {
  await due(6);
  const receiver = new HeldReceiver();
  const { source, hold } = interleavedDataSource(dataSource);
  const dispatch = dispatcher(source, receiver, { batchSize: 5, maxInFlightPerTarget: 2 });
  const workers = [dispatch.worker(), dispatch.worker()];
  try {
    // Both claims start together; the second to read waits until the first has claimed (the
    // receiver's two slots) and then reads the four rows nobody holds.
    const secondRead = hold(DUE_READ, 2);
    const claiming = workers.map((w) => w.claimDue());
    await secondRead.reached;
    expect(await Promise.race(claiming)).toBe(2);
    secondRead.open();

    expect(await Promise.all(claiming)).toEqual(expect.arrayContaining([2, 0]));
    expect(receiver.mostInFlight).toBe(2);
  } finally {
    receiver.answerAll();
    await Promise.all(workers.map((w) => w.close()));
  }
});

it("gives a receiver's slot back when another dispatcher locked the row it chose first", async () => {
  const ids = await due(4);
  const receiver = new HeldReceiver();
  const { source, hold } = interleavedDataSource(dataSource);
  const dispatch = dispatcher(source, receiver, { batchSize: 2, maxInFlightPerTarget: 2 });
  const worker = dispatch.worker();
  const elsewhere: NotificationClaims = outbox.claims();
  try {
    const beforeLock = hold(/pg_try_advisory_lock\(/);
    const claiming = worker.claimDue();
    // It read the four and chose the two oldest, counted against the receiver's limit of 2.
    await beforeLock.reached;
    const taken = await elsewhere.claim({ limit: 2, now: new Date(), skipTargets: [], choose: (rows, wanted) => rows.map((r) => r.id).slice(0, wanted) });
    expect(taken.map((c) => c.id)).toEqual(ids.slice(0, 2));
    beforeLock.open();
    // Both locks failed. Once the claim is over, the receiver's two slots are free again for
    // the two other rows (in this claim or the next one).
    const started = (await claiming) + (await worker.claimDue());
    expect(started).toBe(2);
    expect(receiver.sent.sort()).toEqual(ids.slice(2).sort());
  } finally {
    receiver.answerAll();
    await worker.close();
    await elsewhere.close();
  }
});
