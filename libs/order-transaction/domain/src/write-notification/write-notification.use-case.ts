import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject, MerchantMode, NotificationSettings } from '@gateway/contracts';
import { NotificationOutbox, ReservedAnnouncement } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { EntityManager } from 'typeorm';
import { LedgerEvents, OrderRecordedEvent, OutcomeLearnedEvent } from '../ledger-events/ledger-events';

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
      payload: notificationPayload(event.body, event.merchant.id),
      sealedSecret: settings.secret.current,
      sealedPreviousSecret: previousSecretAt(settings, event.recordedAt),
      at: event.recordedAt,
    });
  }

  /**
   * What an open card transaction keeps for its resolution: exactly what orderRecorded would
   * write the completion's notification with (its URL, the merchant's mode, the current sealed
   * secret), or null where orderRecorded would write nothing. The previous secret of a rotation
   * is not kept: whether it is still valid when the outcome is learned is the profile's to say.
   */
  reservedAnnouncement(event: OrderRecordedEvent): ReservedAnnouncement | null {
    const url = event.notificationUrl;
    const secret = event.merchant.settings.notifications.secret;
    if (!url || !this.announces(event) || !secret) {
      return null;
    }
    return { url, merchantMode: event.merchant.mode, sealedSecret: secret.current };
  }

  /**
   * A learned outcome is announced as the operation's completion would have announced it: with
   * what the transaction kept while its outcome was open (reservedAnnouncement: the URL in force
   * for that operation, the mode, the sealed secret), whether it was a reservation abandoned
   * PENDING or an UNKNOWN outcome (unknown-resolution.md, amendment 2026-11-27). A transaction
   * that kept nothing, because it would not have been announced or was recorded before the
   * ledger kept it, falls back to the earlier rule (outcomeLearnedAsUnknown), which finds nothing
   * for the first.
   */
  async outcomeLearned(manager: EntityManager, event: OutcomeLearnedEvent): Promise<boolean> {
    if (event.reserved) {
      return this.announceAs(manager, event, event.reserved.url, event.reserved);
    }
    return this.outcomeLearnedAsUnknown(manager, event);
  }

  /**
   * A transaction recorded before the ledger kept its announcement: its learned outcome is
   * announced when the UNKNOWN one was. The outbox still holding that notification is the
   * ledger's own record that the merchant had notifications enabled (and a secret) and the order
   * an https URL when the transaction was recorded. The merchant's profile is the edge's and is
   * not asked for (webhook-notification-secret.md), so the new notification is written for the
   * merchant mode and with the sealed secret that one carries, to the order's notification URL as
   * it is now (docs/decisions/unknown-resolution.md).
   */
  private async outcomeLearnedAsUnknown(manager: EntityManager, event: OutcomeLearnedEvent): Promise<boolean> {
    const url = event.notificationUrl;
    if (!url) {
      return false;
    }
    const { merchantId, orderId, transactionId } = event;
    const announced = await this.outbox.unknownAnnouncement(manager, { merchantId, orderId, transactionId });
    return this.announceAs(manager, event, url, announced);
  }

  /**
   * A transaction recorded from the acquirer's records is announced as any record of the order
   * is, when the ledger knows how: the order has an https URL (a request on it named one before
   * the restore point) and the outbox still holds a notification of the order, which is the
   * ledger's own record that the merchant had notifications enabled, with the mode and sealed
   * secret to write it with (the profile is the edge's and is not asked for, as outcomeLearned).
   * An order lost whole has no URL in the ledger: nothing can be announced.
   */
  async recordedFromAcquirer(manager: EntityManager, event: OutcomeLearnedEvent): Promise<boolean> {
    const url = event.notificationUrl;
    if (!url) {
      return false;
    }
    const earlier = await this.outbox.latestOfOrder(manager, { merchantId: event.merchantId, orderId: event.orderId });
    return this.announceAs(manager, event, url, earlier);
  }

  /** `event`'s notification, written for the mode and with the sealed secret of an earlier one (none: nothing written). */
  private async announceAs(
    manager: EntityManager,
    event: OutcomeLearnedEvent,
    url: string,
    earlier: { merchantMode: MerchantMode; sealedSecret: string } | null,
  ): Promise<boolean> {
    if (!earlier) {
      return false;
    }
    const { merchantId, orderId, transactionId, apiOperation } = event;
    await this.outbox.add(manager, {
      id: randomUUID(),
      merchantId,
      merchantMode: earlier.merchantMode,
      orderId,
      transactionId,
      apiOperation,
      url,
      payload: notificationPayload(event.body, merchantId),
      sealedSecret: earlier.sealedSecret,
      // Which previous secret is still valid now is the profile's to say: the current one only.
      sealedPreviousSecret: null,
      at: event.recordedAt,
    });
    return true;
  }
}

/**
 * What a notification carries: the order and the transaction exactly as the transaction
 * retrieval shows them (the stored response, order group completed, card numbers masked),
 * with the merchant id (docs/webhooks.md).
 */
export function notificationPayload(body: JsonObject, merchantId: string): JsonObject {
  return { ...body, merchant: merchantId };
}

function previousSecretAt(settings: NotificationSettings, at: Date): string | null {
  const secret = settings.secret;
  if (!secret?.previous || !secret.previousValidUntil) {
    return null;
  }
  return Date.parse(secret.previousValidUntil) > at.getTime() ? secret.previous : null;
}
