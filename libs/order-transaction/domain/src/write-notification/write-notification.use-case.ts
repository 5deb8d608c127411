import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject, NotificationSettings } from '@gateway/contracts';
import { NotificationOutbox } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { EntityManager } from 'typeorm';
import { LedgerEvents, OrderRecordedEvent } from '../ledger-events/ledger-events';

/**
 * The webhook outbox's writer, bound to the ledger's LEDGER_EVENTS seam: inside the record's
 * database transaction, one INSERT per order change when the merchant has notifications
 * enabled and the order has an https notification URL. Nothing leaves the process here (the
 * order is locked); the dispatcher delivers later.
 */
@Injectable()
export class WriteNotification implements LedgerEvents {
  constructor(
    private readonly outbox: NotificationOutbox,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  announces(event: OrderRecordedEvent): boolean {
    return event.merchant.settings.notifications.enabled && Boolean(event.notificationUrl);
  }

  async orderRecorded(manager: EntityManager, event: OrderRecordedEvent): Promise<void> {
    const url = event.notificationUrl;
    if (!url || !this.announces(event)) {
      return;
    }
    const settings = event.merchant.settings.notifications;
    if (!settings.secret) {
      // The admin CLI issues a secret whenever it enables notifications; a profile without one
      // was edited by hand. Unsigned notifications are never sent.
      this.logger.warn({ merchantId: event.merchant.id, orderId: event.orderId }, 'notifications enabled without a notification secret: none written');
      return;
    }
    await this.outbox.add(manager, {
      id: randomUUID(),
      merchantId: event.merchant.id,
      merchantMode: event.merchant.mode,
      orderId: event.orderId,
      transactionId: event.transactionId,
      apiOperation: event.apiOperation,
      url,
      payload: notificationPayload(event),
      sealedSecret: settings.secret.current,
      sealedPreviousSecret: previousSecretAt(settings, event.recordedAt),
      at: event.recordedAt,
    });
  }
}

/**
 * What a notification carries: the order and the transaction exactly as the transaction
 * retrieval shows them (the stored response, order group completed, card numbers masked),
 * with the merchant id (docs/webhooks.md).
 */
export function notificationPayload(event: OrderRecordedEvent): JsonObject {
  return { ...event.body, merchant: event.merchant.id };
}

function previousSecretAt(settings: NotificationSettings, at: Date): string | null {
  const secret = settings.secret;
  if (!secret?.previous || !secret.previousValidUntil) {
    return null;
  }
  return Date.parse(secret.previousValidUntil) > at.getTime() ? secret.previous : null;
}
