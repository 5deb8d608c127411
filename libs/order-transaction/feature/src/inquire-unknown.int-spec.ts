import { randomBytes } from 'node:crypto';
import { AcquirerRegistry, InquiryRequest, InquiryResult, TestAcquirer } from '@gateway/acquirer';
import { JsonObject, MerchantContext, notificationSecretContext, OperationReply, SUBJECTS } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { LedgerRepository, UnknownInquiries } from '@gateway/order-transaction/data-access';
import {
  ABANDONED_RESERVATION_AFTER,
  AbandonedReservations,
  INQUIRY_WAIT_MS,
  InquireUnknown,
  RecordOperation,
  ResolveUnknown,
  SWEEP_WINDOW_MS,
  UNKNOWN_RESOLUTIONS_METRIC,
  UnknownInquiryOptions,
} from '@gateway/order-transaction/domain';
import { AppLogger, BackgroundJobs, createLogger, Metrics } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan, sentStatements, TEST_CARD, TEST_EXPIRY, testRequestHasher, waitFor } from '@gateway/testing';
import { Money } from '@gateway/money';
import { DataSource } from 'typeorm';
import { AbandonedReservationSweeper } from './abandoned-reservation-sweeper';
import { LedgerTestApp, newOrderId, nextFence, operateAs, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';
import { UnknownReconciler } from './unknown-reconciler';

/**
 * The gateway learning UNKNOWN outcomes by itself (InquireUnknown): the real ledger, its queue
 * and the test acquirer's inquiry. A database of its own: a round claims every due inquiry, and
 * the other files' UNKNOWN transactions must stay UNKNOWN.
 */
const database = `${process.env.TEST_DATABASE}_unknown_inquiries`;
let app: LedgerTestApp;
const silent: AppLogger = createLogger({ service: 'order-transaction', level: 'silent' });

beforeAll(async () => {
  const url = await createDatabase(database);
  // Rounds only when a test asks for one; asked about as soon as recorded.
  app = await startLedgerTestApp({ DATABASE_URL: url, UNKNOWN_INQUIRY_INTERVAL_MS: '0', UNKNOWN_INQUIRY_AFTER_MS: '0' });
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

const unknownCard = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.UNKNOWN, securityCode: '100' } } };
const payUnknown = (merchant: MerchantContext, orderId: string, amount = '20.00') =>
  operateAs(app, merchant, orderId, 'p1', 'PAY', { order: { amount, currency: 'USD' }, sourceOfFunds: unknownCard });

const round = () => app.running.app.get(UnknownReconciler).runNow();

/** An InquireUnknown of the app's parts, with other options or another acquirer registry (a second replica). */
function inquirer(options: Partial<UnknownInquiryOptions> = {}, acquirers?: AcquirerRegistry): InquireUnknown {
  const get = <T>(type: new (...args: never[]) => T) => app.running.app.get(type);
  return new InquireUnknown(
    get(UnknownInquiries),
    get(LedgerRepository),
    acquirers ?? get(AcquirerRegistry),
    get(ResolveUnknown),
    { afterMs: 0, batchSize: 20, retryBaseMs: 60_000, ...options },
    silent,
    app.running.app.get<number>(ABANDONED_RESERVATION_AFTER),
  );
}

/**
 * A PAY of 8.00 recorded UNKNOWN, as RunReservedOperation records a call that threw, with
 * `response` stored; funded by a card unless `fundingType` says otherwise.
 */
function recordUnknownPay(merchant: MerchantContext, orderId: string, response: JsonObject, fundingType = 'CARD') {
  return app.record({
    envelope: { merchant, apiVersion: 100, requestId: `lost-${orderId}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
    orderId,
    transactionId: 'p1',
    apiOperation: 'PAY',
    requestHash: testRequestHasher().hash({ apiOperation: 'PAY', orderId }),
    mode: 'CREATE',
    order: { currency: 'USD', amount: '8.00' },
    transaction: { type: 'PAYMENT', amount: '8.00', currency: 'USD', result: 'UNKNOWN', gatewayCode: 'UNKNOWN', fundingType },
    response,
  });
}

async function queued(merchant: MerchantContext) {
  return app.dataSource.query(
    `SELECT order_id AS "orderId", transaction_id AS "transactionId", merchant_mode AS mode, attempts, last_result AS "lastResult",
            next_attempt_at AS "nextAttemptAt"
       FROM order_transaction.unknown_inquiries WHERE merchant_id = $1 ORDER BY order_id`,
    [merchant.id],
  ) as Promise<{ orderId: string; transactionId: string; mode: string; attempts: number; lastResult: string | null; nextAttemptAt: Date }[]>;
}

async function retrieve(merchant: MerchantContext, orderId: string, transactionId = 'p1'): Promise<JsonObject> {
  const envelope = { merchant, apiVersion: 100, requestId: `get-${orderId}`, authMethod: 'PASSWORD' as const };
  const reply: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveTransaction, { envelope, orderId, transactionId });
  return reply.body;
}

async function counted(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value)).reduce((sum, v) => sum + v.value, 0);
}

describe('inquiries about UNKNOWN card transactions', () => {
  it('queues the UNKNOWN outcome with its record; a round finds it APPROVED at the acquirer and records it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const unknown = await payUnknown(merchant, orderId);
    expect(unknown).toMatchObject({ result: 'UNKNOWN' });
    expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1', mode: 'TEST', attempts: 0 })]);
    const [inquiries, resolutions] = [await counted('gateway_acquirer_requests_total', { operation: 'INQUIRE' }), await counted(UNKNOWN_RESOLUTIONS_METRIC, { source: 'INQUIRY' })];

    expect(await round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await retrieve(merchant, orderId)).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED', acquirerCode: '00', acquirerMessage: 'Approved' },
      order: { status: 'CAPTURED', totalCapturedAmount: 20 },
      transaction: { authorizationCode: expect.stringMatching(/^[0-9]{6}$/), acquirer: { transactionId: (unknown.transaction as JsonObject & { acquirer: JsonObject }).acquirer.transactionId } },
    });
    // Dequeued in the resolution's own database transaction.
    expect(await queued(merchant)).toEqual([]);
    expect(await counted('gateway_acquirer_requests_total', { operation: 'INQUIRE' })).toBe(inquiries + 1);
    expect(await counted(UNKNOWN_RESOLUTIONS_METRIC, { source: 'INQUIRY', outcome: 'APPROVED' })).toBe(resolutions + 1);
    expect(await round()).toMatchObject({ claimed: 0 });
  });

  it('a call no answer came back from (no acquirer reference) is unknown to the acquirer: DECLINED, its amount freed', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    // As RunReservedOperation records a call that threw: UNKNOWN, nothing from the acquirer.
    await recordUnknownPay(merchant, orderId, { sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } } });
    expect(await queued(merchant)).toHaveLength(1);
    expect(await round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await retrieve(merchant, orderId)).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'DECLINED', acquirerCode: '25', acquirerMessage: 'Unable to locate record' },
      order: { status: 'FAILED', totalCapturedAmount: 0 },
    });
  });

  it("a provider's transaction recorded UNKNOWN is not queued: browser-payment follows its provider, no acquirer is asked about it", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await recordUnknownPay(merchant, orderId, { sourceOfFunds: { type: 'PROVIDER_A' } }, 'PROVIDER_A');
    expect(await queued(merchant)).toEqual([]);
  });

  it('a partial approval the acquirer answers with its amount is recorded at it where the request accepted partial amounts, and left to an operator where not', async () => {
    const merchant = testMerchant();
    const [accepting, whole] = [newOrderId(), newOrderId()];
    await operateAs(app, merchant, accepting, 'p1', 'PAY', { order: { amount: '10.51', currency: 'USD', acceptPartialAmount: true }, sourceOfFunds: unknownCard });
    await payUnknown(merchant, whole, '10.51');
    // The test acquirer's inquiry answers from the reference alone and never knows of a partial
    // approval (test-acquirer.md): an acquirer that does, for this merchant's transactions.
    class Partial extends TestAcquirer {
      override async inquire(request: InquiryRequest): Promise<InquiryResult> {
        if (request.merchantId !== merchant.id) return super.inquire(request);
        const reference = request.reference ? { acquirerTransactionId: request.reference.acquirerTransactionId } : {};
        return { result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED', acquirerCode: '10', ...reference, approvedAmount: Money.of('5.25', 'USD') };
      }
    }
    const resolutions = await counted(UNKNOWN_RESOLUTIONS_METRIC, { source: 'INQUIRY', outcome: 'PARTIALLY_APPROVED' });
    expect(await inquirer({}, new AcquirerRegistry(new Metrics(), new Partial())).round()).toMatchObject({ claimed: 2, resolved: 1, retried: 1 });

    expect(await retrieve(merchant, accepting)).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'PARTIALLY_APPROVED', acquirerCode: '10' },
      order: { amount: 5.25, status: 'CAPTURED', totalCapturedAmount: 5.25 },
      transaction: { amount: 5.25, requestedAmount: 10.51 },
    });
    expect(await counted(UNKNOWN_RESOLUTIONS_METRIC, { source: 'INQUIRY', outcome: 'PARTIALLY_APPROVED' })).toBe(resolutions + 1);
    // The other refused by the ledger (its request did not accept partial amounts): still UNKNOWN, queued for an operator.
    expect(await retrieve(merchant, whole)).toMatchObject({ result: 'UNKNOWN', order: { amount: 10.51, totalCapturedAmount: 0 } });
    expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId: whole, attempts: 1, lastResult: 'REFUSED PARTIALLY_APPROVED' })]);
    // The operator's resolution dequeues it (the rounds of the tests after this one would claim it).
    await app.running.app.get(ResolveUnknown).execute({ merchantId: merchant.id, orderId: whole, transactionId: 'p1', learned: { gatewayCode: 'DECLINED' }, source: 'OPERATOR' });
    expect(await queued(merchant)).toEqual([]);
  });

  it('asks the acquirer the transaction names, whatever mode queued it: a test-era order operated on after a switch to LIVE', async () => {
    const live: MerchantContext = { ...testMerchant(), mode: 'LIVE' };
    const orderId = newOrderId();
    // As a capture, void or refund of a test-era order sent after the switch is recorded when its
    // call threw: UNKNOWN, queued with the merchant's mode now (LIVE), naming the target's acquirer.
    await recordUnknownPay(live, orderId, { transaction: { acquirer: { id: 'TEST_ACQUIRER' } } });
    expect(await queued(live)).toEqual([expect.objectContaining({ mode: 'LIVE' })]);
    expect(await round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await retrieve(live, orderId)).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED', acquirerCode: '25' } });
  });

  it('waits for the configured age before asking', async () => {
    const merchant = testMerchant();
    await payUnknown(merchant, newOrderId());
    const patient = inquirer({ afterMs: 60_000 });
    expect(await patient.round()).toMatchObject({ claimed: 0 });
    expect(await patient.round(new Date(Date.now() + 61_000))).toMatchObject({ claimed: 1, resolved: 1 });
  });

  it('two replicas asking at once share the queue: each transaction asked about and resolved once', async () => {
    const merchant = testMerchant();
    const orders = [newOrderId(), newOrderId(), newOrderId(), newOrderId(), newOrderId()];
    for (const orderId of orders) {
      await payUnknown(merchant, orderId, '3.00');
    }
    const before = await counted('gateway_acquirer_requests_total', { operation: 'INQUIRE' });
    const rounds = await Promise.all([inquirer({ batchSize: 3 }).round(), inquirer({ batchSize: 3 }).round()]);
    expect(rounds.reduce((sum, r) => sum + r.claimed, 0)).toBe(5);
    expect(rounds.reduce((sum, r) => sum + r.resolved, 0)).toBe(5);
    expect(await counted('gateway_acquirer_requests_total', { operation: 'INQUIRE' })).toBe(before + 5);
    for (const orderId of orders) {
      expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED' } });
    }
    expect(await queued(merchant)).toEqual([]);
  });

  it('an acquirer that does not answer leaves the transaction UNKNOWN, asked again after a wait', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await payUnknown(merchant, orderId);
    const asked: InquiryRequest[] = [];
    const silentAcquirer = {
      forMerchantMode: () => ({ inquire: (request: InquiryRequest) => (asked.push(request), Promise.reject(new Error('acquirer link down'))) }),
    } as unknown as AcquirerRegistry;
    expect(await inquirer({}, silentAcquirer).round()).toMatchObject({ claimed: 1, retried: 1 });
    // Asked by the identifiers of the original call, and the reference its UNKNOWN answer gave.
    expect(asked).toEqual([{ merchantId: merchant.id, orderId, transactionId: 'p1', operation: 'PAY', reference: expect.objectContaining({ acquirerTransactionId: expect.any(String) }) }]);
    const [row] = await queued(merchant);
    expect(row).toMatchObject({ attempts: 1, lastResult: 'ERROR' });
    expect(row.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'UNKNOWN' });
    expect(await inquirer().round()).toMatchObject({ claimed: 0 });
  });

  it('an acquirer that goes on not answering is asked again within the hour, however many times it was asked', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await payUnknown(merchant, orderId);
    // Asked eleven times already: the doubling wait alone would be 60 s × 2^11, about 34 hours
    // more of the payer's money held; the wait stops doubling at an hour.
    await app.dataSource.query(`UPDATE order_transaction.unknown_inquiries SET attempts = 11 WHERE merchant_id = $1`, [merchant.id]);
    const silentAcquirer = { forMerchantMode: () => ({ inquire: () => Promise.reject(new Error('acquirer link down')) }) } as unknown as AcquirerRegistry;
    const startedAt = Date.now();
    expect(await inquirer({ retryBaseMs: 60_000 }, silentAcquirer).round()).toMatchObject({ claimed: 1, retried: 1 });
    const [row] = await queued(merchant);
    expect(row).toMatchObject({ attempts: 12, lastResult: 'ERROR' });
    expect(row.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(startedAt + 3_600_000);
    expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
    // Resolved by an operator, which dequeues it.
    await app.running.app.get(ResolveUnknown).execute({ merchantId: merchant.id, orderId, transactionId: 'p1', learned: { gatewayCode: 'DECLINED' }, source: 'OPERATOR' });
    expect(await queued(merchant)).toEqual([]);
  });

  /** An acquirer that fails each inquiry, having first done `meanwhile` (the process told to stop, another replica's claim). */
  function acquirerDoing(meanwhile: () => Promise<void> | void, asked: InquiryRequest[] = []): AcquirerRegistry {
    return {
      forMerchantMode: () => ({
        inquire: async (request: InquiryRequest) => {
          asked.push(request);
          await meanwhile();
          throw new Error('acquirer link down');
        },
      }),
    } as unknown as AcquirerRegistry;
  }

  it('a round told to stop asks no more after the inquiry it is at, and gives the rest back for another replica to ask now', async () => {
    const merchant = testMerchant();
    const orders = [newOrderId(), newOrderId(), newOrderId()];
    for (const orderId of orders) {
      await payUnknown(merchant, orderId, '4.00');
    }
    const due = await queued(merchant);
    let stopping = false;
    const asked: InquiryRequest[] = [];
    // The process is told to stop while the acquirer answers the first inquiry.
    const stopped = await inquirer({ batchSize: 3 }, acquirerDoing(() => void (stopping = true), asked)).round(new Date(), () => stopping);

    expect(stopped).toMatchObject({ claimed: 3, retried: 1, released: 2 });
    expect(asked).toHaveLength(1);
    // The two it did not ask about: due as before the claim, their attempt not counted.
    expect((await queued(merchant)).filter((row) => row.orderId !== asked[0].orderId)).toEqual(due.filter((row) => row.orderId !== asked[0].orderId));
    // Another replica's round asks about them at once, not once the stopped round's lease runs out.
    expect(await inquirer({ batchSize: 3 }).round()).toMatchObject({ claimed: 2, resolved: 2 });
    // The one it asked about, once its retry wait is over.
    await inquirer().round(new Date(Date.now() + 61_000));
    expect(await queued(merchant)).toEqual([]);
  });

  it("a stopping round gives back only the claims it still holds, never another replica's", async () => {
    const merchant = testMerchant();
    const orders = [newOrderId(), newOrderId(), newOrderId()];
    for (const orderId of orders) {
      await payUnknown(merchant, orderId, '5.00');
    }
    const inquiries = app.running.app.get(UnknownInquiries);
    let stopping = false;
    // While the first inquiry hangs past the round's lease, another replica claims what is due then
    // (these three among them), and then the process is told to stop.
    const later = new Date(Date.now() + 3_600_000);
    const otherLease = new Date(later.getTime() + 90_000);
    const otherReplica = acquirerDoing(async () => {
      await inquiries.claim({ now: later, recordedBefore: later, limit: 100, leaseUntil: otherLease });
      stopping = true;
    });

    expect(await inquirer({ batchSize: 3 }, otherReplica).round(new Date(), () => stopping)).toMatchObject({ claimed: 3, released: 0 });
    // The two it did not ask about still carry the other replica's claim.
    expect((await queued(merchant)).filter((row) => row.orderId !== orders[0])).toEqual([
      expect.objectContaining({ attempts: 2, nextAttemptAt: otherLease }),
      expect.objectContaining({ attempts: 2, nextAttemptAt: otherLease }),
    ]);
  });

  it('a transaction an operator resolved first is not asked about', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await payUnknown(merchant, orderId);
    await app.running.app.get(ResolveUnknown).execute({ merchantId: merchant.id, orderId, transactionId: 'p1', source: 'OPERATOR', learned: { gatewayCode: 'DECLINED' } });
    expect(await queued(merchant)).toEqual([]);
    expect(await round()).toMatchObject({ claimed: 0 });
    expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'FAILURE', order: { status: 'FAILED' } });
  });

  it("tells another replica's claim from its own by the attempt count, even when both leases end at the same instant", async () => {
    const merchant = testMerchant();
    const orders = [newOrderId(), newOrderId(), newOrderId()];
    for (const orderId of orders) {
      await payUnknown(merchant, orderId, '6.00');
    }
    const inquiries = app.running.app.get(UnknownInquiries);
    let stopping = false;
    const now = new Date();
    // The stopped round's lease (batch of 3), and another replica's claim that happens to end with it.
    const sameLease = new Date(now.getTime() + 3 * INQUIRY_WAIT_MS + 60_000);
    const later = new Date(now.getTime() + 3_600_000);
    const otherReplica = acquirerDoing(async () => {
      await inquiries.claim({ now: later, recordedBefore: later, limit: 100, leaseUntil: sameLease });
      stopping = true;
    });

    expect(await inquirer({ batchSize: 3 }, otherReplica).round(now, () => stopping)).toMatchObject({ claimed: 3, released: 0 });
    expect((await queued(merchant)).filter((row) => row.orderId !== orders[0])).toEqual([
      expect.objectContaining({ attempts: 2, nextAttemptAt: sameLease }),
      expect.objectContaining({ attempts: 2, nextAttemptAt: sameLease }),
    ]);
  });

  it('a stopping round whose claims cannot be given back still ends: they are asked once their lease runs out', async () => {
    const merchant = testMerchant();
    const orders = [newOrderId(), newOrderId()];
    for (const orderId of orders) {
      await payUnknown(merchant, orderId, '7.00');
    }
    let stopping = false;
    const release = jest.spyOn(app.running.app.get(UnknownInquiries), 'release').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    try {
      const stopped = await inquirer({ batchSize: 2 }, acquirerDoing(() => void (stopping = true))).round(new Date(), () => stopping);
      expect(stopped).toMatchObject({ claimed: 2, retried: 1, released: 0 });
      expect(release).toHaveBeenCalledTimes(1);
    } finally {
      release.mockRestore();
    }
    // Still leased by the stopped round.
    expect((await queued(merchant)).every((row) => row.attempts === 1 && row.nextAttemptAt.getTime() > Date.now())).toBe(true);
  });
});

/**
 * Card reservations abandoned PENDING (docs/decisions/unknown-resolution.md, amendment of
 * 2026-11-26): a process that died between the reservation and its completion, as the failure
 * drill's SIGKILL leaves them. The app runs with the default ABANDONED_RESERVATION_AFTER_MS.
 */
describe('card reservations abandoned PENDING', () => {
  const approvedCard = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } };
  const payRequest = (amount: string, notificationUrl?: string) => ({
    order: { amount, currency: 'USD', ...(notificationUrl ? { notificationUrl } : {}) },
    sourceOfFunds: approvedCard,
  });
  const afterMs = () => app.running.app.get<number>(ABANDONED_RESERVATION_AFTER);

  /**
   * A PAY the acquirer processed whose completion never reached the ledger, as a SIGKILL between
   * the two leaves it: every COMPLETE write of the ledger is lost while it runs. Its last write
   * is then made `ageMs` old.
   */
  async function abandonedPay(merchant: MerchantContext, orderId: string, amount: string, ageMs: number, notificationUrl?: string): Promise<void> {
    const records = app.running.app.get(RecordOperation);
    const write = records.execute.bind(records);
    const lost = jest.spyOn(records, 'execute').mockImplementation(async (message, step, seen, deadline) => {
      if (step === 'COMPLETE') {
        throw new Error('process killed before its completion');
      }
      return write(message, step, seen, deadline);
    });
    try {
      await expect(operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest(amount, notificationUrl))).rejects.toBeDefined();
    } finally {
      lost.mockRestore();
    }
    await age(merchant, orderId, 'p1', ageMs);
  }

  /** Written `ageMs` ago: created then too, as a reservation, written once, is. */
  function age(merchant: MerchantContext, orderId: string, transactionId: string, ageMs: number) {
    return app.dataSource.query(
      `UPDATE order_transaction.transactions SET created_at = now() - make_interval(secs => $4::float8 / 1000), updated_at = now() - make_interval(secs => $4::float8 / 1000)
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3`,
      [merchant.id, orderId, transactionId, ageMs],
    );
  }

  /**
   * A refund request awaiting approval (`r1`, on a paid order) and a browser payment waiting at
   * its provider (`p1`, as browser-payment records it), `ageMs` old: PENDING, never card
   * reservations. `merchant` needs refundRequiresApproval.
   */
  async function pendingButNoReservations(merchant: MerchantContext, ageMs = 3_600_000) {
    const [refunded, provider] = [newOrderId(), newOrderId()];
    await operateAs(app, merchant, refunded, 'p1', 'PAY', payRequest('40.00'));
    const request = { transaction: { amount: '15.00', currency: 'USD' } };
    expect(await operateAs(app, merchant, refunded, 'r1', 'REFUND', request)).toMatchObject({ result: 'PENDING', transaction: { type: 'REFUND_REQUEST' } });
    await age(merchant, refunded, 'r1', ageMs);
    await app.record({
      envelope: { merchant, apiVersion: 100, requestId: `provider-${provider}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
      orderId: provider,
      transactionId: 'p1',
      apiOperation: 'INITIATE_BROWSER_PAYMENT',
      requestHash: testRequestHasher().hash({ apiOperation: 'INITIATE_BROWSER_PAYMENT', orderId: provider }),
      mode: 'CREATE',
      order: { currency: 'USD', amount: '25.00' },
      transaction: { type: 'PAYMENT', amount: '25.00', currency: 'USD', result: 'PENDING', gatewayCode: 'PENDING', fundingType: 'PROVIDER_A' },
      response: { result: 'PENDING', response: { gatewayCode: 'PENDING' }, transaction: { id: 'p1' } },
    });
    await age(merchant, provider, 'p1', ageMs);
    return { refunded, provider, request };
  }

  /** The acquirer's own records: the payments it approved, answered by the identifiers an inquiry carries (the test acquirer keeps none). */
  function acquirerThatApproved(...orders: { merchantId: string; orderId: string; transactionId: string }[]): AcquirerRegistry {
    class Records extends TestAcquirer {
      override async inquire(request: InquiryRequest): Promise<InquiryResult> {
        const approved = orders.some((o) => o.merchantId === request.merchantId && o.orderId === request.orderId && o.transactionId === request.transactionId);
        return approved
          ? { result: 'SUCCESS', gatewayCode: 'APPROVED', acquirerCode: '00', acquirerMessage: 'Approved', acquirerTransactionId: 'MCC0000000042', authorizationCode: '123456' }
          : super.inquire(request);
      }
    }
    return new AcquirerRegistry(new Metrics(), new Records());
  }

  it('a PAY approved at the acquirer, met by the merchant\'s retry once its last write is old: SUCCESS, and the next retry answers it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await abandonedPay(merchant, orderId, '30.00', afterMs() + 1_000);
    const acquirer = acquirerThatApproved({ merchantId: merchant.id, orderId, transactionId: 'p1' });
    expect(await inquirer({}, acquirer).round()).toMatchObject({ claimed: 0 });

    // The merchant's retry still answers PENDING, and queues the reservation for an inquiry.
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('30.00'))).toMatchObject({ result: 'PENDING', response: { gatewayCode: 'PENDING' } });
    expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1', mode: 'TEST', attempts: 0 })]);
    const resolutions = await counted(UNKNOWN_RESOLUTIONS_METRIC, { source: 'INQUIRY', outcome: 'APPROVED' });

    expect(await inquirer({}, acquirer).round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await queued(merchant)).toEqual([]);
    expect(await counted(UNKNOWN_RESOLUTIONS_METRIC, { source: 'INQUIRY', outcome: 'APPROVED' })).toBe(resolutions + 1);
    // The retry answers the learned outcome, from the stored response (no acquirer call), as GET does.
    const retried = await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('30.00'));
    expect(retried).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED', acquirerCode: '00' },
      order: { status: 'CAPTURED', totalCapturedAmount: 30 },
      transaction: { authorizationCode: '123456', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC0000000042' } },
    });
    expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'SUCCESS', order: { totalCapturedAmount: 30 } });
  });

  it('a PAY the acquirer has no record of, met by a GET: FAILURE, its amount freed for the order', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await abandonedPay(merchant, orderId, '30.00', afterMs() + 1_000);
    expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'PENDING' });
    expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1' })]);

    // The app's own round, its own acquirer: a call whose reference the ledger never got is not located.
    expect(await round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await retrieve(merchant, orderId)).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'DECLINED', acquirerCode: '25' },
      order: { status: 'FAILED', totalCapturedAmount: 0 },
    });
    // Freed: the order's whole amount can be paid again.
    expect(await operateAs(app, merchant, orderId, 'p2', 'PAY', payRequest('30.00'))).toMatchObject({ result: 'SUCCESS', order: { totalCapturedAmount: 30 } });
  });

  it('a reservation younger than ABANDONED_RESERVATION_AFTER_MS is never queued nor asked about, though an old one beside it is', async () => {
    const merchant = testMerchant();
    const [young, old] = [newOrderId(), newOrderId()];
    await abandonedPay(merchant, young, '10.00', afterMs() - 5_000);
    await abandonedPay(merchant, old, '10.00', afterMs() + 1_000);
    for (const orderId of [young, old]) {
      expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('10.00'))).toMatchObject({ result: 'PENDING' });
      expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'PENDING' });
    }
    expect((await queued(merchant)).map((row) => row.orderId)).toEqual([old]);
    expect(await round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await retrieve(merchant, young)).toMatchObject({ result: 'PENDING', response: { gatewayCode: 'PENDING' } });
    expect(await retrieve(merchant, old)).toMatchObject({ result: 'FAILURE' });
  });

  it("a refund request awaiting approval and a provider's PENDING, however old, are never queued; an abandoned card reservation beside them is", async () => {
    const merchant = testMerchant({ privileges: { excessiveRefund: false, unmask: false, refundRequiresApproval: true } });
    const card = newOrderId();
    const { refunded, provider, request } = await pendingButNoReservations(merchant);
    await abandonedPay(merchant, card, '10.00', afterMs() + 1_000);

    expect(await operateAs(app, merchant, refunded, 'r1', 'REFUND', request)).toMatchObject({ result: 'PENDING' });
    for (const orderId of [refunded, provider, card]) {
      await retrieve(merchant, orderId, orderId === refunded ? 'r1' : 'p1');
    }
    expect((await queued(merchant)).map((row) => row.orderId)).toEqual([card]);
    expect(await round()).toMatchObject({ claimed: 1, resolved: 1 });
    expect(await retrieve(merchant, refunded, 'r1')).toMatchObject({ result: 'PENDING', transaction: { type: 'REFUND_REQUEST' } });
    expect(await retrieve(merchant, provider)).toMatchObject({ result: 'PENDING' });
  });

  /**
   * Reservations nobody reads again (amendment of 2026-11-26, "abandoned reservations nobody
   * reads"): the sweep finds them in the ledger and queues them, with no merchant mode.
   */
  describe('found by the sweep', () => {
    const sweep = () => app.running.app.get(AbandonedReservationSweeper).runNow();
    const transactionOf = async (merchant: MerchantContext, orderId: string, transactionId = 'p1') =>
      (
        await app.dataSource.query(
          `SELECT result, gateway_code AS "gatewayCode" FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3`,
          [merchant.id, orderId, transactionId],
        )
      )[0];
    const cursor = async (): Promise<Date> => (await app.dataSource.query(`SELECT swept_to AS "sweptTo" FROM order_transaction.reservation_sweep`))[0].sweptTo;
    /** The cursor put `msAgo` before the database's clock: the sweep reads the ledger created since. */
    const sweptTo = (msAgo: number) =>
      app.dataSource.query(`UPDATE order_transaction.reservation_sweep SET swept_to = now() - make_interval(secs => $1::float8 / 1000)`, [msAgo]);
    const databaseNow = async (): Promise<Date> => (await app.dataSource.query('SELECT now() AS now'))[0].now;
    /** Reservations abandoned 170, 100 and 10 minutes ago behind a cursor three hours back: a backlog of three steps, one order each. */
    const backlogOfThree = async (merchant: MerchantContext): Promise<string[]> => {
      const orders = [newOrderId(), newOrderId(), newOrderId()];
      for (const [index, minutes] of [170, 100, 10].entries()) {
        await abandonedPay(merchant, orders[index], '10.00', minutes * 60_000);
      }
      await sweptTo(3 * 3_600_000);
      return orders;
    };
    const createdAt = async (merchant: MerchantContext, orderId: string): Promise<Date> =>
      (await app.dataSource.query(`SELECT created_at AS "createdAt" FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2`, [merchant.id, orderId]))[0]
        .createdAt;

    // Each test's reservations are younger than this; other tests' left behind it.
    beforeEach(() => sweptTo(50 * 60_000));

    it('a PAY approved at the acquirer that nobody reads: swept, queued once, recorded SUCCESS', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '30.00', afterMs() + 1_000);
      expect(await queued(merchant)).toEqual([]);
      const before = await counted('gateway_abandoned_reservations_queued_total', { source: 'SWEEP' });

      const swept = await sweep();
      expect(swept).toMatchObject({ outcome: 'SWEPT', queued: expect.any(Number), behind: false });
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1', mode: null, attempts: 0 })]);
      // With what other tests left in the window.
      expect(await counted('gateway_abandoned_reservations_queued_total', { source: 'SWEEP' })).toBe(before + (swept as { queued: number }).queued);
      // Queued already: a sweep of its window again leaves it as it is.
      await sweptTo(50 * 60_000);
      // Counted for this merchant only, here and below: other tests leave reservations of their own in the window.
      expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, attempts: 0 })]);

      // Routed by the acquirer its PENDING body names, with no mode queued.
      expect(await inquirer({}, acquirerThatApproved({ merchantId: merchant.id, orderId, transactionId: 'p1' })).round()).toMatchObject({ resolved: expect.any(Number) });
      expect(await transactionOf(merchant, orderId)).toEqual({ result: 'SUCCESS', gatewayCode: 'APPROVED' });
      expect(await queued(merchant)).toEqual([]);
      expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 30 } });
    });

    it('a PAY of a merchant with notifications on, swept and recorded: notified once, as its completion would have been (amendment 2026-11-27)', async () => {
      const hooks = 'https://merchant.example/hooks';
      const plain = testMerchant();
      // Sealed as the admin CLI seals it (the ledger only copies it).
      const ring = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');
      const sealed = ring.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext(plain.id));
      const merchant: MerchantContext = { ...plain, settings: { ...plain.settings, notifications: { enabled: true, secret: { current: sealed } } } };
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '30.00', afterMs() + 1_000, hooks);
      const outbox = () =>
        app.dataSource.query(
          `SELECT url, merchant_mode AS mode, sealed_secret AS "sealedSecret", payload FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2`,
          [merchant.id, orderId],
        );
      expect(await outbox()).toEqual([]);
      await sweep();
      const acquirer = acquirerThatApproved({ merchantId: merchant.id, orderId, transactionId: 'p1' });
      expect(await inquirer({}, acquirer).round()).toMatchObject({ resolved: expect.any(Number) });
      const retrieved = await retrieve(merchant, orderId);
      expect(retrieved).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 30 } });
      expect(await outbox()).toEqual([{ url: hooks, mode: 'TEST', sealedSecret: sealed, payload: { ...retrieved, merchant: merchant.id } }]);
      // Another round, or a read, finds nothing open: no second notification.
      await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('30.00', hooks));
      await inquirer({}, acquirer).round();
      expect(await outbox()).toHaveLength(1);
    });

    it('a PAY the acquirer has no record of, that nobody reads: swept, recorded FAILURE, its amount freed', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '30.00', afterMs() + 1_000);
      await sweep();
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, mode: null })]);
      await round();
      expect(await transactionOf(merchant, orderId)).toEqual({ result: 'FAILURE', gatewayCode: 'DECLINED' });
      expect(await operateAs(app, merchant, orderId, 'p2', 'PAY', payRequest('30.00'))).toMatchObject({ result: 'SUCCESS', order: { totalCapturedAmount: 30 } });
    });

    it("leaves a young reservation, a refund request awaiting approval and a provider's PENDING alone", async () => {
      const merchant = testMerchant({ privileges: { excessiveRefund: false, unmask: false, refundRequiresApproval: true } });
      const [young, old] = [newOrderId(), newOrderId()];
      // In the sweep's window: half an hour old.
      const { refunded, provider } = await pendingButNoReservations(merchant, 30 * 60_000);
      await abandonedPay(merchant, young, '10.00', afterMs() - 30_000);
      await abandonedPay(merchant, old, '10.00', afterMs() + 1_000);

      await sweep();
      expect((await queued(merchant)).map((row) => row.orderId)).toEqual([old]);
      await round();
      expect(await transactionOf(merchant, young)).toEqual({ result: 'PENDING', gatewayCode: 'PENDING' });
      expect(await transactionOf(merchant, refunded, 'r1')).toEqual({ result: 'PENDING', gatewayCode: 'PENDING' });
      expect(await transactionOf(merchant, provider)).toEqual({ result: 'PENDING', gatewayCode: 'PENDING' });
    });

    it("two replicas: while one's sweep holds the cursor, the other's skips at once; the next sweep queues the reservations", async () => {
      const merchant = testMerchant();
      const orders = [newOrderId(), newOrderId(), newOrderId()];
      for (const orderId of orders) {
        await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);
      }
      const from = await cursor();
      // The other replica's sweep, its transaction open on the cursor.
      const runner = app.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await runner.query('SELECT swept_to FROM order_transaction.reservation_sweep FOR UPDATE');
        expect(await sweep()).toEqual({ outcome: 'SKIPPED' });
        expect(await queued(merchant)).toEqual([]);
        expect(await cursor()).toEqual(from);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect((await queued(merchant)).map((row) => row.orderId)).toEqual([...orders].sort());
      await round();
    });

    /**
     * `count` card payments completed half an hour ago, each on an order of its own: pages of the
     * ledger inserted since autovacuum last summarised the BRIN on created_at (it is off on the
     * test server; a busy one lags).
     */
    const completedPayments = async (merchant: MerchantContext, count: number) => {
      const prefix = newOrderId();
      await app.dataSource.query(
        `INSERT INTO order_transaction.orders (merchant_id, order_id, currency, amount, status, total_authorized_amount,
           total_captured_amount, total_refunded_amount, details, notification_url, last_fencing_token, operation_count, created_at, updated_at)
         SELECT $1, $2 || '-' || i, 'USD', 10, 'CAPTURED', 10, 10, 0, '{}', NULL, 1, 1, now() - interval '30 minutes', now() - interval '30 minutes'
           FROM generate_series(1, $3::integer) i`,
        [merchant.id, prefix, count],
      );
      await app.dataSource.query(
        `INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence, api_operation, type, amount,
           currency, result, gateway_code, funding_type, created_at, updated_at)
         SELECT $1, $2 || '-' || i, 'p1', 1, 'PAY', 'PAYMENT', 10, 'USD', 'SUCCESS', 'APPROVED', 'CARD', now() - interval '30 minutes', now() - interval '30 minutes'
           FROM generate_series(1, $3::integer) i`,
        [merchant.id, prefix, count],
      );
    };
    /** How many ranges of the BRIN had no summary: it summarises them (as VACUUM would). */
    const summariseCreationIndex = async (): Promise<number> =>
      Number((await app.dataSource.query(`SELECT brin_summarize_new_values('order_transaction.transactions_created_at_brin_idx'::regclass) AS n`))[0].n);

    it('summarises the BRIN it reads its window through, which autovacuum has not: a step reads its window, not every page inserted since', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      // More than a range's 128 pages: past the range a summary already covers.
      await completedPayments(merchant, 12_000);
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);

      expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1' })]);
      // Nothing left for VACUUM to summarise: every range, the one being filled included, has its summary.
      expect(await summariseCreationIndex()).toBe(0);
    });

    it('does not wait for a VACUUM (or an index build) holding the table: it gives the summary up and sweeps its window', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      // More than a range's 128 pages: past the range a summary already covers.
      await completedPayments(merchant, 12_000);
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);
      const runner = app.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        // The lock VACUUM, ANALYZE and CREATE INDEX CONCURRENTLY take; a writer's does not conflict with it.
        await runner.query('LOCK TABLE order_transaction.transactions IN SHARE UPDATE EXCLUSIVE MODE');
        const started = Date.now();
        expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
        // Given up after its 100 ms lock_timeout, well before a waiter would cancel an autovacuum (deadlock_timeout, 1 s).
        expect(Date.now() - started).toBeLessThan(1_000);
        expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1' })]);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      // Left unsummarised, for the next step (or that VACUUM).
      expect(await summariseCreationIndex()).toBeGreaterThan(0);
    });

    it("a role that does not own the table sweeps without the summary, and the process says so once", async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);
      // A service's role that was not the one that ran the migrations: its rows' privileges only.
      const role = `int_sweep_not_owner_${process.pid}`;
      await app.dataSource.query(`CREATE ROLE ${role} LOGIN`);
      await app.dataSource.query(`GRANT USAGE ON SCHEMA order_transaction TO ${role}`);
      await app.dataSource.query(`GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA order_transaction TO ${role}`);
      const url = new URL((app.dataSource.options as { url: string }).url);
      url.username = role;
      const pool = new DataSource({ ...app.dataSource.options, url: url.toString() } as typeof app.dataSource.options);
      try {
        await pool.initialize();
        const logger = createLogger({ service: 'order-transaction', level: 'silent' });
        const warn = jest.spyOn(logger, 'warn');
        const abandoned = new AbandonedReservations(UnknownInquiries.over(pool), new LedgerRepository(pool), afterMs(), logger, new Metrics());
        // What it queued is counted for this merchant only: the app's other tests leave reservations of their own in the window.
        expect(await abandoned.sweep()).toMatchObject({ outcome: 'SWEPT' });
        expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1' })]);
        await sweptTo(50 * 60_000);
        expect(await abandoned.sweep()).toMatchObject({ outcome: 'SWEPT' });
        const unsummarised = warn.mock.calls.filter(([, message]) => String(message).includes('cannot summarise the BRIN'));
        expect(unsummarised).toHaveLength(1);
      } finally {
        await (pool.isInitialized ? pool.destroy() : undefined);
        await app.dataSource.query(`DROP OWNED BY ${role}`);
        await app.dataSource.query(`DROP ROLE ${role}`);
      }
      // The owner's sweep (the app's) says nothing of it.
      const owner = createLogger({ service: 'order-transaction', level: 'silent' });
      const ownerWarn = jest.spyOn(owner, 'warn');
      const get = <T>(type: new (...args: never[]) => T) => app.running.app.get(type);
      expect(await new AbandonedReservations(get(UnknownInquiries), get(LedgerRepository), afterMs(), owner, new Metrics()).sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(ownerWarn.mock.calls.filter(([, message]) => String(message).includes('cannot summarise the BRIN'))).toEqual([]);
    });

    it('a summary that fails for another reason (the index renamed) does not fail the step: it sweeps without it, and the process says why once', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);
      const index = 'transactions_created_at_brin_idx';
      const moved = `${index}_moved`;
      await app.dataSource.query(`ALTER INDEX order_transaction.${index} RENAME TO ${moved}`);
      try {
        const logger = createLogger({ service: 'order-transaction', level: 'silent' });
        const warn = jest.spyOn(logger, 'warn');
        const get = <T>(type: new (...args: never[]) => T) => app.running.app.get(type);
        const abandoned = new AbandonedReservations(get(UnknownInquiries), get(LedgerRepository), afterMs(), logger, new Metrics());
        // Counted for this merchant only: other tests leave reservations of their own in the window.
        expect(await abandoned.sweep()).toMatchObject({ outcome: 'SWEPT' });
        expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, transactionId: 'p1' })]);
        await sweptTo(50 * 60_000);
        expect(await abandoned.sweep()).toMatchObject({ outcome: 'SWEPT' });
        const failed = warn.mock.calls.filter(([, message]) => String(message).includes('could not summarise the BRIN'));
        expect(failed).toEqual([[{ index: `order_transaction.${index}`, reason: expect.stringContaining(`"order_transaction.${index}" does not exist`) }, expect.any(String)]]);
      } finally {
        await app.dataSource.query(`ALTER INDEX order_transaction.${moved} RENAME TO ${index}`);
      }
    });

    it("moves the cursor to ABANDONED_RESERVATION_AFTER_MS before the database's clock", async () => {
      const before = await databaseNow();
      const swept = await sweep();
      const after = await databaseNow();
      const to = await cursor();
      expect(swept).toEqual({ outcome: 'SWEPT', queued: expect.any(Number), sweptTo: to, behind: false });
      expect(to.getTime()).toBeGreaterThanOrEqual(before.getTime() - afterMs());
      expect(to.getTime()).toBeLessThanOrEqual(after.getTime() - afterMs());
    });

    it('does not read again what it swept: a reservation created before the cursor is left to the reads', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await sweep();
      // Created a minute before the cursor (as none can be: a reservation commits within the threshold).
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 60_000);
      expect((await createdAt(merchant, orderId)).getTime()).toBeLessThan((await cursor()).getTime());

      expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(await queued(merchant)).toEqual([]);
      expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'PENDING' });
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, mode: 'TEST' })]);
      await round();
    });

    it('works through a backlog an hour of the ledger at a time', async () => {
      const merchant = testMerchant();
      const orders = await backlogOfThree(merchant);
      const from = await cursor();
      const queuedOrders = async () => (await queued(merchant)).map((row) => row.orderId).sort();

      expect(await sweep()).toMatchObject({ outcome: 'SWEPT', behind: true });
      expect(await queuedOrders()).toEqual([orders[0]]);
      expect((await cursor()).getTime() - from.getTime()).toBe(SWEEP_WINDOW_MS);
      expect(await sweep()).toMatchObject({ outcome: 'SWEPT', behind: true });
      expect(await queuedOrders()).toEqual([orders[0], orders[1]].sort());
      expect(await sweep()).toMatchObject({ outcome: 'SWEPT', behind: false });
      expect(await queuedOrders()).toEqual([...orders].sort());
      await round();
    });

    it('catches up a backlog a step a second, then sweeps at its interval again', async () => {
      const merchant = testMerchant();
      const orders = await backlogOfThree(merchant);
      // The app's own sweep, its steps timed.
      const abandoned = app.running.app.get(AbandonedReservations);
      const sweepOnce = abandoned.sweep.bind(abandoned);
      const starts: number[] = [];
      let ended = 0;
      const timed = jest.spyOn(abandoned, 'sweep').mockImplementation(() => {
        starts.push(Date.now());
        return sweepOnce().finally(() => (ended += 1));
      });
      const intervalMs = 3_000;
      const sweeper = new AbandonedReservationSweeper(abandoned, { intervalMs, inquiryIntervalMs: 60_000 }, silent, new BackgroundJobs(silent));
      const started = Date.now();
      sweeper.onApplicationBootstrap();
      try {
        // Three steps an hour each, then the first at the interval.
        await waitFor(async () => starts.length >= 4, { timeoutMs: 20_000, what: 'four sweep steps' });
      } finally {
        sweeper.stop();
        await waitFor(async () => ended === starts.length, { what: 'the last step to end' });
        timed.mockRestore();
      }
      const gaps = starts.slice(1).map((at, index) => at - starts[index]);
      expect(starts[0] - started).toBeGreaterThanOrEqual(intervalMs - 50);
      // Each step's pause counts from the end of the one before: a second, plus a step's time.
      expect(gaps[0]).toBeGreaterThanOrEqual(1_000 - 50);
      expect(gaps[0]).toBeLessThan(2_000);
      expect(gaps[1]).toBeGreaterThanOrEqual(1_000 - 50);
      expect(gaps[1]).toBeLessThan(2_000);
      // Caught up after the third: the interval again.
      expect(gaps[2]).toBeGreaterThanOrEqual(intervalMs - 50);
      expect((await queued(merchant)).map((row) => row.orderId).sort()).toEqual([...orders].sort());
      await round();
    });

    it('a step in progress does not hold the shutdown up; cut off by the pool closing, it commits nothing and logs no failure', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);
      const from = await cursor();
      // Another replica's sweep on a pool of its own, which its shutdown closes (TypeORM's module
      // destroys the DataSource after the shutdown hooks and the drain of the requests).
      const pool = new DataSource(app.dataSource.options);
      await pool.initialize();
      const logger = createLogger({ service: 'order-transaction', level: 'silent' });
      const logged = { warn: jest.spyOn(logger, 'warn'), error: jest.spyOn(logger, 'error'), info: jest.spyOn(logger, 'info') };
      const abandoned = new AbandonedReservations(UnknownInquiries.over(pool), new LedgerRepository(pool), afterMs(), logger, new Metrics());
      const sweeper = new AbandonedReservationSweeper(abandoned, { intervalMs: 60_000, inquiryIntervalMs: 60_000 }, logger, new BackgroundJobs(logger));
      const sweepInsert = `query LIKE '%INSERT INTO order_transaction.unknown_inquiries%SELECT%' AND pid <> pg_backend_pid()`;
      const backends = async (where: string): Promise<number> =>
        Number((await app.dataSource.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND ${where}`))[0].n);
      // A read queueing the same reservation, its transaction still open: the sweep's INSERT waits for it (ON CONFLICT).
      const read = app.dataSource.createQueryRunner();
      await read.connect();
      let step: Promise<unknown> | undefined;
      try {
        await read.startTransaction();
        await read.query(
          `INSERT INTO order_transaction.unknown_inquiries (merchant_id, order_id, transaction_id, merchant_mode, recorded_at, next_attempt_at, attempts)
           VALUES ($1, $2, 'p1', 'TEST', now(), now(), 0)`,
          [merchant.id, orderId],
        );
        step = sweeper.runNow();
        await waitFor(async () => (await backends(`wait_event_type = 'Lock' AND ${sweepInsert}`)) > 0, { what: 'the sweep step waiting for the read' });

        const stopped = Promise.resolve(sweeper.stop()).then(() => 'stopped' as const);
        const waiting = new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 1_000).unref());
        expect(await Promise.race([stopped, waiting])).toBe('stopped');
        await pool.destroy();
      } finally {
        // The read gives up its row: a step still running would queue the reservation now.
        await read.rollbackTransaction();
        await read.release();
        await step;
        if (pool.isInitialized) {
          await pool.destroy();
        }
      }
      expect(await step).toBeNull();
      // The step's server process, let through by the read, ends its transaction without committing.
      await waitFor(async () => (await backends(`state <> 'idle' AND ${sweepInsert}`)) === 0, { what: 'the cut-off step to end' });
      expect(await cursor()).toEqual(from);
      expect(await queued(merchant)).toEqual([]);
      expect(logged.warn).not.toHaveBeenCalled();
      expect(logged.error).not.toHaveBeenCalled();
      expect(logged.info).toHaveBeenCalledWith(expect.objectContaining({ reason: expect.any(String) }), expect.stringContaining('cut off by the shutdown'));

      // The next sweep reads the window again.
      expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, mode: null })]);
      await round();
    });

    it('does not sweep where the inquiries are off, and says so; its cursor stays for when they are on', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '10.00', afterMs() + 1_000);
      const from = await cursor();
      const abandoned = app.running.app.get(AbandonedReservations);
      const sweepingFor = async (inquiryIntervalMs: number, what: () => Promise<unknown>) => {
        const logger = createLogger({ service: 'order-transaction', level: 'silent' });
        const info = jest.spyOn(logger, 'info');
        const sweeper = new AbandonedReservationSweeper(abandoned, { intervalMs: 200, inquiryIntervalMs }, logger, new BackgroundJobs(logger));
        sweeper.onApplicationBootstrap();
        try {
          await what();
        } finally {
          sweeper.stop();
          if (inquiryIntervalMs > 0) {
            // A step in progress ends (runNow joins it, or sweeps once more) before the next test moves the cursor.
            await sweeper.runNow();
          }
        }
        return info;
      };
      // Inquiries off: several intervals pass, nothing swept.
      const told = await sweepingFor(0, () => new Promise((resolve) => setTimeout(resolve, 1_500)));
      expect(await cursor()).toEqual(from);
      expect(await queued(merchant)).toEqual([]);
      expect(told).toHaveBeenCalledWith({ sweepIntervalMs: 200 }, expect.stringContaining('not swept: the inquiries are off'));
      // Inquiries on: swept within an interval or two.
      await sweepingFor(60_000, () => waitFor(async () => (await queued(merchant)).length > 0, { what: 'the sweep' }));
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, mode: null })]);
      expect((await cursor()).getTime()).toBeGreaterThan(from.getTime());
      await round();
    });

    it('does not pass a reservation too young to sweep: its window is swept once it is old enough', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '10.00', afterMs() - 30_000);
      expect(await sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(await queued(merchant)).toEqual([]);
      expect((await cursor()).getTime()).toBeLessThan((await createdAt(merchant, orderId)).getTime());

      // A minute later, as a sweep whose threshold is a minute shorter sees the ledger now.
      const get = <T>(type: new (...args: never[]) => T) => app.running.app.get(type);
      const minuteLater = new AbandonedReservations(get(UnknownInquiries), get(LedgerRepository), afterMs() - 60_000, silent, new Metrics());
      expect(await minuteLater.sweep()).toMatchObject({ outcome: 'SWEPT' });
      expect(await queued(merchant)).toEqual([expect.objectContaining({ orderId, mode: null })]);
      await round();
    });

    it('reads reservations by creation time, which is when they were reserved: an UPDATE never makes a card transaction PENDING again', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await recordUnknownPay(merchant, orderId, { sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } } });
      const written = `SELECT result, created_at AS "createdAt", updated_at AS "updatedAt" FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2`;
      const [unknown] = await app.dataSource.query(written, [merchant.id, orderId]);

      // An UPDATE of the UNKNOWN PAY back to PENDING (no caller sends one): refused, nothing written.
      await expect(
        app.record({
          envelope: { merchant, apiVersion: 100, requestId: `again-${orderId}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
          orderId,
          transactionId: 'p1',
          apiOperation: 'RESERVE_AGAIN',
          requestHash: testRequestHasher().hash({ apiOperation: 'RESERVE_AGAIN', orderId }),
          mode: 'UPDATE',
          updates: 'PAY',
          order: { currency: 'USD' },
          transaction: { type: 'PAYMENT', amount: '8.00', currency: 'USD', result: 'PENDING', gatewayCode: 'PENDING', fundingType: 'CARD' },
          response: { result: 'PENDING', response: { gatewayCode: 'PENDING' }, sourceOfFunds: { type: 'CARD' }, transaction: { id: 'p1', type: 'PAYMENT' } },
        }),
      ).rejects.toBeDefined();
      expect(await app.dataSource.query(written, [merchant.id, orderId])).toEqual([unknown]);
      await round();
    });

    it('an answer the gateway does not record by itself is asked about again with the doubling wait, whoever meets the reservation meanwhile', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, '30.00', afterMs() + 1_000);
      await sweep();
      class Partial extends TestAcquirer {
        override async inquire(request: InquiryRequest): Promise<InquiryResult> {
          return request.merchantId === merchant.id ? { result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED' } : super.inquire(request);
        }
      }
      const partial = new AcquirerRegistry(new Metrics(), new Partial());
      const startedAt = Date.now();
      await inquirer({ retryBaseMs: 60_000 }, partial).round();
      const [backingOff] = await queued(merchant);
      expect(backingOff).toMatchObject({ orderId, attempts: 1, lastResult: 'PARTIALLY_APPROVED' });
      expect(backingOff.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(startedAt + 60_000);

      // The merchant's retry, a GET and a sweep meet it: its attempts and its wait stay.
      expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('30.00'))).toMatchObject({ result: 'PENDING' });
      expect(await retrieve(merchant, orderId)).toMatchObject({ result: 'PENDING' });
      // Its window swept again (only its: what other tests left there would be due before it).
      await app.dataSource.query(
        `UPDATE order_transaction.reservation_sweep SET swept_to = $1::timestamptz - interval '1 millisecond'`,
        [await createdAt(merchant, orderId)],
      );
      await sweep();
      expect(await queued(merchant)).toEqual([backingOff]);
      await inquirer({ retryBaseMs: 60_000 }, partial).round();
      expect(await queued(merchant)).toEqual([backingOff]);

      // Once due, asked again, and the wait doubles. Due a second ago: now() has microseconds, and a
      // round starting within the same millisecond compares against a Date that has none.
      await app.dataSource.query(`UPDATE order_transaction.unknown_inquiries SET next_attempt_at = now() - interval '1 second' WHERE merchant_id = $1`, [merchant.id]);
      const again = Date.now();
      await inquirer({ retryBaseMs: 60_000 }, partial).round();
      const [twice] = await queued(merchant);
      expect(twice).toMatchObject({ attempts: 2 });
      expect(twice.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(again + 120_000);
      expect(await transactionOf(merchant, orderId)).toEqual({ result: 'PENDING', gatewayCode: 'PENDING' });
    });

    it("a read that meets several of an order's abandoned reservations queues them in one statement", async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest('40.00'));
      for (const refundId of ['r1', 'r2']) {
        await app.record({
          envelope: { merchant, apiVersion: 100, requestId: `refund-${refundId}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
          orderId,
          transactionId: refundId,
          apiOperation: 'REFUND',
          requestHash: testRequestHasher().hash({ apiOperation: 'REFUND', orderId, refundId }),
          mode: 'CREATE',
          order: { currency: 'USD', amount: '40.00' },
          transaction: { type: 'REFUND', amount: '5.00', currency: 'USD', result: 'PENDING', gatewayCode: 'PENDING', fundingType: 'CARD', targetTransactionId: 'p1' },
          response: { result: 'PENDING', response: { gatewayCode: 'PENDING' }, sourceOfFunds: { type: 'CARD' }, transaction: { id: refundId, type: 'REFUND' } },
        });
        await age(merchant, orderId, refundId, afterMs() + 1_000);
      }
      const inserts = (statements: { text: string }[]) => statements.filter((s) => s.text.startsWith('INSERT INTO order_transaction.unknown_inquiries'));

      expect(inserts(await sentStatements(() => retrieve(merchant, orderId, 'r1')))).toHaveLength(1);
      expect((await queued(merchant)).map((row) => row.transactionId)).toEqual(['r1', 'r2']);
      // Queued already: still one statement, nothing changed.
      expect(inserts(await sentStatements(() => retrieve(merchant, orderId, 'r2')))).toHaveLength(1);
      // No abandoned reservation on the order: nothing sent to the queue.
      expect(inserts(await sentStatements(() => retrieve(merchant, orderId, 'p1')))).toHaveLength(0);
      await round();
    });
  });
});
