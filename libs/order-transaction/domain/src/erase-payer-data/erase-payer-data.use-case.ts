import { setTimeout as sleep } from 'node:timers/promises';
import { JsonObject, notificationUrlKept, withoutPersonalData } from '@gateway/contracts';
import type { PayerDataRecords, PayerDataRepository } from '@gateway/order-transaction/data-access';
import { type AppLogger, type EraseOrderCommand, isDeadlockOrSerializationFailure } from '@gateway/platform';

/**
 * The platform's command (EraseOrderCommand). With `retention` (RetainPayerData), the ledger also
 * marks the order stripped (`markStripped`), whether anything was left to strip or not, so the job
 * reads it no more until its next operation; and a webhook delivery in flight is not waited for:
 * the order fails at once, nothing written, and a later run does it.
 */
export type ErasePayerDataCommand = EraseOrderCommand;

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
  /**
   * Whether the order's notification URL had a query or fragment (cut to what delivery needs),
   * there or in what an open card transaction of the order keeps for announcing its outcome.
   */
  notificationUrl: boolean;
  /** Stored operation responses that held some. */
  responses: number;
  /** Webhook notifications of the order, whatever their status, whose payload or URL held some. */
  notifications: number;
  /** Agreements the order's operations named whose custom data was (or would be) erased. */
  agreements: number;
}

/**
 * `payer-data erase`: strips a payer's personal data from an order's records in the ledger when
 * the merchant forwards the payer's erasure request (docs/decisions/payer-personal-data.md, item
 * 3): the fields the log scrubber hides (contracts' withoutPersonalData), from the order's
 * details, every stored response and every webhook payload of the order; the query and fragment
 * of the order's notification URL, of its notifications' URLs and of the URL its open card
 * transactions keep for announcing their outcome (`transactions.announcement`); the custom data of the
 * agreements the order named (amendment 2026-11-27). Everything else stays: ids, amounts,
 * currency, status, result and gateway codes, the masked card, the acquirer's references, the
 * agreements' terms, and each response's request hash, so a replay of the original request
 * still matches and answers the stripped body without a side effect, and a retrieval shows the
 * same money. One database transaction holding the order row, as every ledger write does, and
 * the order's notifications against the dispatcher. A notification being delivered is not waited
 * for in that transaction: a delivery takes up to WEBHOOK_TIMEOUT_MS (a minute at most), and the
 * order's row held that long would keep a card operation's record waiting past its statement
 * timeout, its money moved. The transaction then ends having written nothing, and the erasure
 * tries again (DELIVERY_RETRY_PAUSE_MS) until the delivery is over (DELIVERY_WAIT_MS).
 *
 * The transaction may also be ended by Postgres: the webhook dispatcher's `deferTarget` (one
 * UPDATE of a receiver's pending rows) and the webhook purge (one DELETE of a batch) lock outbox
 * rows in their own order while the erasure writes the order's notifications one by one, and
 * Postgres breaks the cycle two rows taken in opposite orders make by aborting one side as a
 * deadlock victim (40P01; a serialization failure, 40001, ends a transaction the same way).
 * Rolled back, the erasure wrote nothing, and the other side gets its rows and finishes: so the
 * erasure runs its transaction again after a short jittered pause, as a gateway retries a
 * deadlock victim, up to CONFLICT_ATTEMPTS in all, then fails the order with the database's
 * error. Any other error fails it at once (amendment 2026-11-27).
 */
export class ErasePayerData {
  constructor(
    private readonly repository: PayerDataRepository,
    private readonly logger: AppLogger,
  ) {}

  async execute(command: ErasePayerDataCommand): Promise<PayerDataErasure> {
    const giveUpAt = Date.now() + (command.retention ? 0 : DELIVERY_WAIT_MS);
    let conflicts = 0;
    for (;;) {
      let erased: PayerDataErasure | typeof DELIVERY_IN_FLIGHT;
      try {
        erased = await this.repository.transaction((records) => this.erasedIn(records, command));
      } catch (err) {
        if (!isDeadlockOrSerializationFailure(err)) {
          throw err;
        }
        conflicts += 1;
        if (conflicts >= CONFLICT_ATTEMPTS) {
          throw err;
        }
        // Ids and the SQLSTATE only: the error's detail names rows and may quote values.
        const { merchantId, orderId } = command;
        this.logger.warn(
          { merchantId, orderId, attempt: conflicts, sqlState: sqlStateOf(err) },
          "payer-data erasure's transaction aborted by the database (deadlock or serialization failure): running it again",
        );
        await sleep(conflictPauseMs());
        continue;
      }
      if (erased !== DELIVERY_IN_FLIGHT) {
        return erased;
      }
      if (Date.now() >= giveUpAt) {
        throw new Error(
          command.retention
            ? `${command.merchantId}/${command.orderId}: a webhook notification of the order is being delivered: nothing changed; the next retention run does it`
            : `${command.merchantId}/${command.orderId}: a webhook notification of the order was still being delivered after ${DELIVERY_WAIT_MS} ms: nothing changed; run the erasure again`,
        );
      }
      await sleep(DELIVERY_RETRY_PAUSE_MS);
    }
  }

  private async erasedIn(records: PayerDataRecords, { merchantId, orderId, dryRun, retention }: ErasePayerDataCommand): Promise<PayerDataErasure | typeof DELIVERY_IN_FLIGHT> {
    // The retention does not queue behind a transaction holding the order's row: an operation
    // being recorded (the order is in use) or another replica stripping it. Skipped, it is read
    // again by the next run unless marked by then.
    const order = await records.order(merchantId, orderId, dryRun ? 'none' : retention ? 'skip' : 'wait');
    if (!order) {
      return { merchantId, orderId, status: retention ? 'UNCHANGED' : 'NOT_FOUND', details: false, notificationUrl: false, responses: 0, notifications: 0, agreements: 0 };
    }
    if (retention && order.updatedAt >= retention.idleBefore) {
      // In use again since the retention read it: its data is not past retention any more.
      return { merchantId, orderId, status: 'UNCHANGED', details: false, notificationUrl: false, responses: 0, notifications: 0, agreements: 0 };
    }
    const details = withoutPersonalData(order.details);
    const notificationUrl = order.notificationUrl === null ? null : notificationUrlKept(order.notificationUrl);
    const stored = await records.responses(merchantId, orderId);
    const responses = stored.flatMap((r) => stripped(r.body, (body) => ({ ...r, body })));
    // An open outcome (a reservation, UNKNOWN) keeps the URL its resolution will announce it to,
    // days later maybe: cut as the order's, or that notification would carry the payer's query.
    const announcements = (await records.announcements(merchantId, orderId)).flatMap((kept) => {
      const url = notificationUrlKept(kept.announcement.url);
      return url === kept.announcement.url ? [] : [{ ...kept, announcement: { ...kept.announcement, url } }];
    });
    // Named before stripping: the agreement groups are what tells which agreements the order used.
    // Not by the retention: an agreement is the series', and a series whose first order is idle
    // may still be paid on, each payment given the agreement's custom data (nothing records when a
    // series was last used); the order's own copies, in its details and responses, are stripped.
    const agreements = retention ? [] : await records.agreements(merchantId, agreementIdsOf([order.details, ...stored.map((r) => r.body)]), !dryRun);
    const outbox = await records.notifications(merchantId, orderId);
    // Keeps the dispatcher off them until commit; one being delivered: nothing is written yet,
    // so the order's row is let go at once and the erasure tries again.
    if (!dryRun && !(await records.holdNotifications(outbox.map((n) => n.id)))) {
      return DELIVERY_IN_FLIGHT;
    }
    const notifications = outbox.flatMap((n) => {
      const payload = withoutPersonalData(n.payload);
      const url = notificationUrlKept(n.url);
      return payload === n.payload && url === n.url ? [] : [{ ...n, payload, url }];
    });
    const counts = {
      details: details !== order.details,
      notificationUrl: notificationUrl !== order.notificationUrl || announcements.length > 0,
      responses: responses.length,
      notifications: notifications.length,
      agreements: agreements.length,
    };
    if (!counts.details && !counts.notificationUrl && counts.responses === 0 && counts.notifications === 0 && counts.agreements === 0) {
      if (retention && !dryRun) {
        await records.markStripped(merchantId, orderId);
      }
      return { merchantId, orderId, status: 'UNCHANGED', ...counts };
    }
    if (dryRun) {
      return { merchantId, orderId, status: 'WOULD_ERASE', ...counts };
    }
    await records.writeOrder(merchantId, orderId, details, notificationUrl);
    for (const response of responses) {
      await records.writeResponse(merchantId, orderId, response);
    }
    for (const kept of announcements) {
      await records.writeAnnouncement(merchantId, orderId, kept);
    }
    for (const notification of notifications) {
      await records.writeNotification(notification);
    }
    if (agreements.length > 0) {
      await records.eraseAgreementData(merchantId, agreements.map((a) => a.agreementId));
    }
    // The lasting record that the erasure was done: ids and counts, as the command prints them
    // (the retention job's record is its run's counts: thousands of orders a run are no news each).
    if (retention) {
      await records.markStripped(merchantId, orderId);
    } else {
      this.logger.info({ merchantId, orderId, ...counts }, "payer's personal data erased from the order");
    }
    return { merchantId, orderId, status: 'ERASED', ...counts };
  }
}

/**
 * The ids of the agreements named in the order's details and responses (`agreement.id`, where
 * VERIFY, AUTHORIZE and PAY put the agreement they ran on), each once, sorted.
 */
function agreementIdsOf(bodies: JsonObject[]): string[] {
  const ids = new Set<string>();
  for (const body of bodies) {
    const agreement = body.agreement;
    if (agreement !== null && typeof agreement === 'object' && !Array.isArray(agreement) && typeof agreement.id === 'string') {
      ids.add(agreement.id);
    }
  }
  return [...ids].sort();
}

/** The erasure met a notification being delivered: its transaction wrote nothing, and it tries again. */
const DELIVERY_IN_FLIGHT = Symbol('a notification of the order is being delivered');

/** The pause before an erasure that met a delivery in flight tries again. */
const DELIVERY_RETRY_PAUSE_MS = 100;

/** How long an erasure tries again for a delivery in flight: the longest WEBHOOK_TIMEOUT_MS (60 s), and its outcome's write. */
const DELIVERY_WAIT_MS = 65_000;

/**
 * How many times in all the erasure runs an order's transaction that Postgres keeps aborting as
 * a deadlock victim or for a serialization failure. The other side of such a conflict (a
 * deferral, a purge batch) is a single statement that finishes once the erasure lets go, so a
 * second attempt almost always goes through; a third covers one more collision with the next
 * batch. Beyond that something keeps colliding, and the operator is told (the order FAILED).
 */
const CONFLICT_ATTEMPTS = 3;

/**
 * The pause before running an aborted transaction again, drawn between these at random: long
 * enough for the winner of the deadlock to take the rows and commit, jittered so that two
 * erasures aborted together do not collide again in step.
 */
const CONFLICT_PAUSE_MIN_MS = 20;
const CONFLICT_PAUSE_MAX_MS = 100;

function conflictPauseMs(): number {
  return CONFLICT_PAUSE_MIN_MS + Math.floor(Math.random() * (CONFLICT_PAUSE_MAX_MS - CONFLICT_PAUSE_MIN_MS + 1));
}

/** The error's SQLSTATE (TypeORM copies the driver's `code` onto its QueryFailedError), for the log line. */
function sqlStateOf(err: unknown): string | undefined {
  const { code } = (err ?? {}) as { code?: unknown };
  return typeof code === 'string' ? code : undefined;
}

/** `rebuilt` with the JSON stripped of personal data, or nothing when it held none. */
function stripped<T>(json: JsonObject, rebuilt: (stripped: JsonObject) => T): T[] {
  const without = withoutPersonalData(json);
  return without === json ? [] : [rebuilt(without)];
}
