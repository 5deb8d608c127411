import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
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

  function setUp(slots: number, { target = TARGET, logger = createLogger({ service: 'test', level: 'silent' }), deferFails = false } = {}) {
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
        url: `${target}/hook?token=t0ken`,
        // As the outbox computes it (RECEIVER_SQL): scheme and authority, user information included.
        target: target.toLowerCase(),
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
        if (deferFails) throw new Error('connection terminated');
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
      logger,
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

  it('forgets a receiver a retry window after its backoff ended: its next timeout backs it off from the start', async () => {
    const { attempt, later, deferred } = setUp(1);
    await attempt('TIMEOUT');
    later(1_000 + 3_600_000 - 1);
    await attempt('TIMEOUT');
    later(2_000 + 3_600_000);
    await attempt('TIMEOUT');
    // Remembered until the window is over (doubled), then forgotten (the base delay again).
    expect(deferred).toEqual([1_000, 2_000, 1_000]);
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

  it("logs a receiver by its origin alone: neither the user information of its URL nor its path or query", async () => {
    const withCredentials = 'https://shop:s3cret@hooks.example:8443';
    for (const deferFails of [false, true]) {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      const { attempt } = setUp(1, { target: withCredentials, logger: createLogger({ service: 'test', level: 'info', destination: sink }), deferFails });
      // A timeout backs the receiver off (logged with the receiver), a failed attempt is logged too.
      await attempt('TIMEOUT');
      const logged = lines.map((line) => JSON.parse(line) as { msg: string; target?: string });
      expect(logged.map((l) => l.msg)).toEqual([
        'webhook delivery failed; will retry',
        deferFails ? "deferring a timed-out receiver's notifications failed" : 'webhook receiver timed out; its notifications wait',
      ]);
      expect(logged.map((l) => l.target)).toEqual(['https://hooks.example:8443', 'https://hooks.example:8443']);
      expect(lines.join('\n')).not.toMatch(/s3cret|shop:|t0ken/);
    }
  });
});
