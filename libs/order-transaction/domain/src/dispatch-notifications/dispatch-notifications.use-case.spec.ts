import { randomBytes } from 'node:crypto';
import { notificationSecretContext } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import type { ClaimedNotification, ClaimRequest, NotificationClaims, NotificationOutbox, NotificationOutcome } from '@gateway/order-transaction/data-access';
import { createLogger } from '@gateway/platform';
import { DispatchNotifications } from './dispatch-notifications.use-case';
import type { DeliveryResult, WebhookSender } from './webhook-sender';

/**
 * One dispatcher's attempts against a fake outbox: what each attempt records, and the
 * per-receiver backoff after a timeout (the SQL that defers the rows: the outbox's int-spec;
 * its effect on other receivers: dispatcher-fairness.int-spec.ts).
 */
describe('dispatching notifications', () => {
  const ring = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');
  const TARGET = 'https://slow.example';
  const start = Date.parse('2026-01-01T00:00:00.000Z');

  function setUp(slots: number) {
    let now = start;
    let next = 0;
    const results: string[] = [];
    const deferred: number[] = [];
    const skipped: string[][] = [];
    const finished: NotificationOutcome[] = [];
    let sealedSecret = ring.seal(new Secret('s'), notificationSecretContext('M1'));
    const notification = (): ClaimedNotification => {
      const id = `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
      return {
        id,
        merchantId: 'M1',
        merchantMode: 'TEST',
        orderId: 'o',
        transactionId: 't',
        url: `${TARGET}/hook`,
        target: TARGET,
        payload: {},
        sealedSecret,
        sealedPreviousSecret: null,
        attempts: 0,
        windowStartedAt: new Date(start),
        createdAt: new Date(start),
      };
    };
    const claims = {
      claim: async (request: ClaimRequest) => {
        skipped.push(request.skipTargets);
        const due = Array.from({ length: request.limit }, notification);
        const picked = new Set(request.choose(due, request.limit));
        return due.filter((n) => picked.has(n.id));
      },
      finish: async (outcome: NotificationOutcome) => {
        finished.push(outcome);
      },
      close: async () => undefined,
    } as unknown as NotificationClaims;
    const outbox = {
      claims: () => claims,
      deferTarget: async (_target: string, until: Date) => {
        deferred.push(until.getTime() - now);
        return 1;
      },
    } as unknown as NotificationOutbox;
    const sender: WebhookSender = {
      send: async (): Promise<DeliveryResult> => {
        const result = results.shift() ?? 'TIMEOUT';
        if (result === 'THROWS') throw new Error('socket hang up');
        return { delivered: false, result };
      },
    };
    const dispatch = new DispatchNotifications(
      outbox,
      sender,
      ring,
      { batchSize: slots, maxInFlightPerTarget: 2, retry: { baseDelayMs: 1_000, maxDelayMs: 4_000, windowMs: 3_600_000 }, allowNonPublicForTestMerchants: true, now: () => new Date(now) },
      createLogger({ service: 'test', level: 'silent' }),
    );
    /** One claim of `slots` deliveries, answered with `answers` in order; waits for them. */
    const attempt = async (...answers: string[]) => {
      results.push(...answers);
      const w = dispatch.worker();
      await w.claimDue();
      await w.close();
    };
    const later = (ms: number) => (now += ms);
    const sealedWithAnotherKey = () => {
      sealedSecret = SealingKeyRing.parse(`t2:${randomBytes(32).toString('base64')}`, 'KEYS').seal(new Secret('s'), notificationSecretContext('M1'));
    };
    return { attempt, later, deferred, skipped, finished, sealedWithAnotherKey };
  }

  it('doubles the backoff with each timeout in a row, up to the maximum, and starts over once the receiver answers', async () => {
    const { attempt, later, deferred } = setUp(1);
    for (const answer of ['TIMEOUT', 'TIMEOUT', 'TIMEOUT', 'TIMEOUT', 'HTTP 500', 'TIMEOUT']) {
      await attempt(answer);
      later(10_000);
    }
    expect(deferred).toEqual([1_000, 2_000, 4_000, 4_000, 1_000]);
  });

  it('counts the timeouts of deliveries in flight together once', async () => {
    const { attempt, deferred } = setUp(2);
    await attempt('TIMEOUT', 'TIMEOUT');
    expect(deferred).toEqual([1_000]);
  });

  it('asks claims to skip a timed-out receiver until its backoff is over', async () => {
    const { attempt, later, skipped } = setUp(1);
    await attempt('TIMEOUT');
    later(999);
    await attempt('HTTP 200');
    later(2);
    await attempt('HTTP 200');
    expect(skipped).toEqual([[], [TARGET], []]);
  });

  it('records a delivery that could not be made as a failed attempt, to be retried', async () => {
    const { attempt, finished } = setUp(1);
    await attempt('THROWS');
    expect(finished.map((o) => [o.status, o.attempts, o.lastResult])).toEqual([['PENDING', 1, 'DISPATCH_ERROR']]);
  });

  it('records a notification whose secret cannot be opened as a failed attempt, to be retried', async () => {
    const { attempt, finished, sealedWithAnotherKey } = setUp(1);
    sealedWithAnotherKey();
    await attempt('HTTP 200');
    expect(finished.map((o) => [o.status, o.attempts, o.lastResult])).toEqual([['PENDING', 1, 'SECRET_UNAVAILABLE']]);
  });
});
