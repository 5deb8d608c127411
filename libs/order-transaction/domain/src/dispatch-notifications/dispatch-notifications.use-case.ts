import { Inject, Injectable } from '@nestjs/common';
import { NOTIFICATION_HEADERS, notificationSecretContext, signNotification } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { ClaimedNotification, NotificationOutbox, NotificationOutcome } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, canonicalJson } from '@gateway/platform';
import { afterFailedAttempt, RetryPolicy } from '../notifications/retry-policy';
import { DeliveryResult, WEBHOOK_SENDER, WebhookSender } from './webhook-sender';

export const DISPATCH_OPTIONS = Symbol('DISPATCH_OPTIONS');
export const NOTIFICATION_SECRET_KEYS = Symbol('NOTIFICATION_SECRET_KEYS');

export interface DispatchOptions {
  batchSize: number;
  retry: RetryPolicy;
  /** Test merchants may be notified on loopback and private addresses (tests, laptops); live ones never. */
  allowNonPublicForTestMerchants: boolean;
  now?: () => Date;
  random?: () => number;
}

export interface BatchReport {
  claimed: number;
  delivered: number;
  failedAttempts: number;
  /** Notifications that ran out of retries in this batch. */
  failed: number;
}

/**
 * One dispatcher step: claim a batch of due notifications (row-locked, so no other dispatcher
 * sends them meanwhile), POST each, signed, in parallel, and record each attempt's outcome:
 * delivered, retried later with backoff, or FAILED once the retry window is over.
 */
@Injectable()
export class DispatchNotifications {
  private readonly now: () => Date;

  constructor(
    private readonly outbox: NotificationOutbox,
    @Inject(WEBHOOK_SENDER) private readonly sender: WebhookSender,
    @Inject(NOTIFICATION_SECRET_KEYS) private readonly keys: SealingKeyRing,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async execute(): Promise<BatchReport> {
    const report: BatchReport = { claimed: 0, delivered: 0, failedAttempts: 0, failed: 0 };
    report.claimed = await this.outbox.claimDue(this.options.batchSize, this.now(), async (claimed) => {
      const outcomes = await Promise.all(claimed.map((notification) => this.attempt(notification)));
      for (const outcome of outcomes) {
        if (outcome.status === 'DELIVERED') report.delivered++;
        else report.failedAttempts++;
        if (outcome.status === 'FAILED') report.failed++;
      }
      return outcomes;
    });
    return report;
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
    const body = canonicalJson(notification.payload);
    const timestamp = Math.floor(this.now().getTime() / 1000);
    return this.sender.send({
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
  }

  private openSecrets(notification: ClaimedNotification): Secret<string>[] {
    const context = notificationSecretContext(notification.merchantId);
    const sealed = [notification.sealedSecret, ...(notification.sealedPreviousSecret ? [notification.sealedPreviousSecret] : [])];
    return sealed.map((value) => this.keys.open(value, context));
  }
}

/** Logs name the receiver's origin only: a merchant may put a token in the URL's path or query. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'unparsable';
  }
}
