import { JsonObject, withoutPersonalData } from '@gateway/contracts';
import type { PayerDataRepository } from '@gateway/order-transaction/data-access';
import type { AppLogger } from '@gateway/platform';

export interface ErasePayerDataCommand {
  merchantId: string;
  orderId: string;
  /** Count what would be stripped; write nothing, lock nothing. */
  dryRun: boolean;
}

/**
 * What the erasure did to one order, in counts: never the data. ERASED: stripped now. WOULD_ERASE:
 * a dry run's answer. UNCHANGED: nothing left to strip (erased before, or never held any).
 * NOT_FOUND: the merchant has no such order (another merchant's is not looked at): nothing done.
 */
export interface PayerDataErasure {
  merchantId: string;
  orderId: string;
  status: 'ERASED' | 'WOULD_ERASE' | 'UNCHANGED' | 'NOT_FOUND';
  /** Whether the order's details held personal data. */
  details: boolean;
  /** Stored operation responses that held some. */
  responses: number;
  /** Webhook notifications still to send (or to send again) whose payload held some. */
  notifications: number;
}

/**
 * `payer-data erase`: strips a payer's personal data from an order's records in the ledger when
 * the merchant forwards the payer's erasure request (docs/decisions/payer-personal-data.md, item
 * 3): the fields the log scrubber hides (contracts' withoutPersonalData), from the order's
 * details, every stored response and the webhook payloads still to send. Everything else stays:
 * ids, amounts, currency, status, result and gateway codes, the masked card, the acquirer's
 * references, and each response's request hash, so a replay of the original request still
 * matches and answers the stripped body without a side effect, and a retrieval shows the same
 * money. One database transaction holding the order row, as every ledger write does.
 */
export class ErasePayerData {
  constructor(
    private readonly repository: PayerDataRepository,
    private readonly logger: AppLogger,
  ) {}

  execute({ merchantId, orderId, dryRun }: ErasePayerDataCommand): Promise<PayerDataErasure> {
    return this.repository.transaction(async (records) => {
      const order = await records.order(merchantId, orderId, !dryRun);
      if (!order) {
        return { merchantId, orderId, status: 'NOT_FOUND', details: false, responses: 0, notifications: 0 };
      }
      const details = withoutPersonalData(order.details);
      const responses = (await records.responses(merchantId, orderId)).flatMap((r) => stripped(r.body, (body) => ({ ...r, body })));
      const notifications = (await records.unsentNotifications(merchantId, orderId)).flatMap((n) => stripped(n.payload, (payload) => ({ ...n, payload })));
      const counts = { details: details !== order.details, responses: responses.length, notifications: notifications.length };
      if (!counts.details && counts.responses === 0 && counts.notifications === 0) {
        return { merchantId, orderId, status: 'UNCHANGED', ...counts };
      }
      if (dryRun) {
        return { merchantId, orderId, status: 'WOULD_ERASE', ...counts };
      }
      await records.writeDetails(merchantId, orderId, details);
      for (const response of responses) {
        await records.writeResponse(merchantId, orderId, response);
      }
      for (const notification of notifications) {
        await records.writeNotification(notification);
      }
      // The lasting record that the erasure was done: ids and counts, as the command prints them.
      this.logger.info({ merchantId, orderId, ...counts }, "payer's personal data erased from the order");
      return { merchantId, orderId, status: 'ERASED', ...counts };
    });
  }
}

/** `rebuilt` with the JSON stripped of personal data, or nothing when it held none. */
function stripped<T>(json: JsonObject, rebuilt: (stripped: JsonObject) => T): T[] {
  const without = withoutPersonalData(json);
  return without === json ? [] : [rebuilt(without)];
}
