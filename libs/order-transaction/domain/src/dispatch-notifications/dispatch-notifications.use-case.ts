import { Inject, Injectable } from '@nestjs/common';
import { NOTIFICATION_HEADERS, notificationSecretContext, signNotification } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { ClaimedNotification, DueNotification, NotificationClaims, NotificationOutbox, NotificationOutcome } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, canonicalJson } from '@gateway/platform';
import { afterFailedAttempt, backoffStep, RetryPolicy } from '../notifications/retry-policy';
import { DeliveryResult, WEBHOOK_SENDER, WebhookSender } from './webhook-sender';

export const DISPATCH_OPTIONS = Symbol('DISPATCH_OPTIONS');
export const NOTIFICATION_SECRET_KEYS = Symbol('NOTIFICATION_SECRET_KEYS');

export interface DispatchOptions {
  /** Deliveries one worker has in flight at most. */
  batchSize: number;
  /**
   * Deliveries to one receiver (scheme and authority of its URL) a dispatcher process has in
   * flight at most, over all its workers: a receiver that hangs occupies no more slots than this.
   */
  maxInFlightPerTarget: number;
  retry: RetryPolicy;
  /** Test merchants may be notified on loopback and private addresses (tests, laptops); live ones never. */
  allowNonPublicForTestMerchants: boolean;
  now?: () => Date;
  random?: () => number;
}

/** What one attempt came to: delivered, to be retried, or failed for good (retry window over). */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

/** The result of a delivery the receiver did not answer within the timeout (WebhookSender). */
const TIMEOUT = 'TIMEOUT';

interface TargetBackoff {
  /** Attempts to this receiver timed out this many times in a row (this process saw). */
  timeouts: number;
  /** Its notifications are not claimed before this (ms since the epoch). */
  until: number;
}

/**
 * Delivers the outbox. Each worker (see `worker`) keeps up to `batchSize` deliveries in flight:
 * it claims due notifications (locked, so no other dispatcher sends them meanwhile) for its free
 * slots, POSTs each, signed, and records each attempt's outcome as soon as it ends (delivered,
 * retried later with backoff, or FAILED once the retry window is over), which frees the slot
 * for the next claim. Nothing waits for a slower delivery of the same claim.
 *
 * So that a receiver that hangs delays only its own notifications, the dispatcher process keeps
 * at most `maxInFlightPerTarget` deliveries to one receiver in flight, and after a delivery to
 * it times out, leaves the receiver alone for a while (the retry policy's backoff, doubling with
 * each further timeout in a row, reset by any answer): its other due notifications wait till
 * then instead of each taking a slot for a full timeout.
 */
@Injectable()
export class DispatchNotifications {
  private readonly now: () => Date;
  private readonly inFlightByTarget = new Map<string, number>();
  private readonly backoffs = new Map<string, TargetBackoff>();

  constructor(
    private readonly outbox: NotificationOutbox,
    @Inject(WEBHOOK_SENDER) private readonly sender: WebhookSender,
    @Inject(NOTIFICATION_SECRET_KEYS) private readonly keys: SealingKeyRing,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** A worker with a claim session of its own; `onAttempt` hears every attempt's outcome. */
  worker(onAttempt: (outcome: AttemptOutcome) => void = () => undefined): DispatchWorker {
    return new DispatchWorker(this.options.batchSize, this.outbox.claims(), (claims, limit) => this.claimAndStart(claims, limit, onAttempt));
  }

  /** Claims up to `limit` due notifications and starts delivering them; answers the deliveries started. */
  private async claimAndStart(claims: NotificationClaims, limit: number, onAttempt: (outcome: AttemptOutcome) => void): Promise<Promise<void>[]> {
    const now = this.now();
    const chosen: DueNotification[] = [];
    let claimed: ClaimedNotification[] = [];
    try {
      claimed = await claims.claim({
        limit,
        now,
        skipTargets: this.targetsToSkip(now.getTime()),
        choose: (due, wanted) => {
          const picked: string[] = [];
          for (const candidate of due) {
            if (picked.length === wanted) break;
            if ((this.inFlightByTarget.get(candidate.target) ?? 0) < this.options.maxInFlightPerTarget) {
              // Counted at once: the other workers of this process choose in between our awaits.
              this.countInFlight(candidate.target, +1);
              chosen.push(candidate);
              picked.push(candidate.id);
            }
          }
          return picked;
        },
      });
    } finally {
      const got = new Set(claimed.map((c) => c.id));
      for (const c of chosen) {
        if (!got.has(c.id)) this.countInFlight(c.target, -1);
      }
    }
    return claimed.map((notification) => this.deliverAndRecord(claims, notification, onAttempt));
  }

  private async deliverAndRecord(claims: NotificationClaims, notification: ClaimedNotification, onAttempt: (outcome: AttemptOutcome) => void): Promise<void> {
    try {
      const outcome = await this.attempt(notification);
      await this.noteTarget(notification.target, outcome.lastResult);
      await claims.finish(outcome, notification.attempts);
      onAttempt(outcome.status === 'DELIVERED' ? 'delivered' : outcome.status === 'FAILED' ? 'failed' : 'retry');
    } catch (err) {
      this.logger.error({ merchantId: notification.merchantId, notificationId: notification.id, err }, 'webhook attempt not recorded; the notification stays due');
    } finally {
      this.countInFlight(notification.target, -1);
    }
  }

  /**
   * Also forgets the receivers whose backoff ended a retry window ago: every notification that
   * was due for them then has been attempted or has failed since, and a receiver that timed out
   * and was never tried again (its merchant moved to another URL) would otherwise stay in memory
   * for as long as the process lives, one entry per such receiver. Its next timeout, if any,
   * backs it off from the start again.
   */
  private targetsToSkip(now: number): string[] {
    const skip = [...this.inFlightByTarget].filter(([, n]) => n >= this.options.maxInFlightPerTarget).map(([target]) => target);
    for (const [target, backoff] of this.backoffs) {
      if (backoff.until > now) skip.push(target);
      else if (backoff.until + this.options.retry.windowMs <= now) this.backoffs.delete(target);
    }
    return skip;
  }

  private countInFlight(target: string, by: 1 | -1): void {
    const n = (this.inFlightByTarget.get(target) ?? 0) + by;
    if (n > 0) this.inFlightByTarget.set(target, n);
    else this.inFlightByTarget.delete(target);
  }

  /**
   * A timeout backs the receiver off (unless it is backed off already: the deliveries in flight
   * when it started time out too, and count once); any other result shows it answers and ends
   * the backoff. Its due notifications are deferred in the outbox, so every dispatcher leaves
   * them alone and claims do not have to read past them.
   */
  private async noteTarget(target: string, result: string): Promise<void> {
    if (result !== TIMEOUT) {
      this.backoffs.delete(target);
      return;
    }
    const now = this.now().getTime();
    const previous = this.backoffs.get(target);
    if (previous && previous.until > now) {
      return;
    }
    const timeouts = (previous?.timeouts ?? 0) + 1;
    const until = now + backoffStep(this.options.retry, timeouts);
    this.backoffs.set(target, { timeouts, until });
    // The key keeps the URL's user information (`https://user:password@host`): logged, its origin only.
    const origin = originOf(target);
    try {
      const deferred = await this.outbox.deferTarget(target, new Date(until));
      this.logger.warn({ target: origin, timeouts, until: new Date(until).toISOString(), deferred }, 'webhook receiver timed out; its notifications wait');
    } catch (err) {
      // This process still skips it; other dispatchers find out by timeouts of their own.
      this.logger.warn({ target: origin, err }, 'deferring a timed-out receiver\'s notifications failed');
    }
  }

  private async attempt(notification: ClaimedNotification): Promise<NotificationOutcome> {
    const attempts = notification.attempts + 1;
    const result = await this.deliver(notification, attempts);
    const at = this.now();
    const base = { id: notification.id, attempts, lastAttemptAt: at, lastResult: result.result };
    if (result.delivered) {
      return { ...base, status: 'DELIVERED', nextAttemptAt: at, deliveredAt: at };
    }
    const next = afterFailedAttempt(this.options.retry, attempts, notification.windowStartedAt, at, this.options.random);
    const log = { merchantId: notification.merchantId, notificationId: notification.id, target: originOf(notification.url), attempts, result: result.result };
    if (next.status === 'FAILED') {
      this.logger.warn(log, 'webhook notification failed: retry window over');
      return { ...base, status: 'FAILED', nextAttemptAt: at, deliveredAt: null };
    }
    this.logger.info({ ...log, nextAttemptAt: next.nextAttemptAt.toISOString() }, 'webhook delivery failed; will retry');
    return { ...base, status: 'PENDING', nextAttemptAt: next.nextAttemptAt, deliveredAt: null };
  }

  private async deliver(notification: ClaimedNotification, attempt: number): Promise<DeliveryResult> {
    let secrets: Secret<string>[];
    try {
      secrets = this.openSecrets(notification);
    } catch (err) {
      // A key missing from WEBHOOK_SECRET_KEYS (dropped too early in a rotation): retried, so
      // putting the key back delivers the backlog.
      this.logger.error({ merchantId: notification.merchantId, notificationId: notification.id, err }, 'notification secret cannot be opened');
      return { delivered: false, result: 'SECRET_UNAVAILABLE' };
    }
    try {
      const body = canonicalJson(notification.payload);
      const timestamp = Math.floor(this.now().getTime() / 1000);
      return await this.sender.send({
        url: notification.url,
        body,
        headers: {
          [NOTIFICATION_HEADERS.id]: notification.id,
          [NOTIFICATION_HEADERS.attempt]: String(attempt),
          [NOTIFICATION_HEADERS.secret]: secrets[0].reveal(),
          [NOTIFICATION_HEADERS.signature]: signNotification(secrets, timestamp, notification.id, body),
        },
        allowNonPublic: notification.merchantMode === 'TEST' && this.options.allowNonPublicForTestMerchants,
      });
    } catch (err) {
      // A failed attempt like any other, so its outcome is written and its claim let go.
      this.logger.error({ merchantId: notification.merchantId, notificationId: notification.id, err }, 'webhook delivery could not be made');
      return { delivered: false, result: 'DISPATCH_ERROR' };
    }
  }

  private openSecrets(notification: ClaimedNotification): Secret<string>[] {
    const context = notificationSecretContext(notification.merchantId);
    const sealed = [notification.sealedSecret, ...(notification.sealedPreviousSecret ? [notification.sealedPreviousSecret] : [])];
    return sealed.map((value) => this.keys.open(value, context));
  }
}

/**
 * Logs name the receiver's origin only (scheme, host and port): a merchant may put a token in
 * the URL's path or query, or credentials in its user information (`https://user:password@host`).
 */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'unparsable';
  }
}

/**
 * One dispatcher worker: up to `slots` deliveries in flight on one claim session. The
 * dispatcher's loop claims whenever a slot is free and work is due, and waits otherwise.
 */
export class DispatchWorker {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly slots: number,
    private readonly claims: NotificationClaims,
    private readonly claimAndStart: (claims: NotificationClaims, limit: number) => Promise<Promise<void>[]>,
  ) {}

  get freeSlots(): number {
    return this.slots - this.inFlight.size;
  }

  /** Claims due notifications for the free slots and starts their deliveries; answers how many. */
  async claimDue(): Promise<number> {
    if (this.freeSlots <= 0) {
      return 0;
    }
    const started = await this.claimAndStart(this.claims, this.freeSlots);
    for (const delivery of started) {
      const tracked: Promise<void> = delivery.finally(() => this.inFlight.delete(tracked));
      this.inFlight.add(tracked);
    }
    return started.length;
  }

  /** Resolves when a delivery in flight ends (never, when none is). */
  nextDone(): Promise<void> {
    return this.inFlight.size > 0 ? Promise.race(this.inFlight) : new Promise<void>(() => undefined);
  }

  /** Waits for the deliveries in flight (each bounded by the delivery timeout), then gives the session back. */
  async close(): Promise<void> {
    await Promise.all(this.inFlight);
    await this.claims.close();
  }
}
