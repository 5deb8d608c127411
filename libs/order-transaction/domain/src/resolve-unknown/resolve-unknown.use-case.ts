import { Inject, Injectable, Optional } from '@nestjs/common';
import type { JsonObject } from '@gateway/contracts';
import { LedgerRepository, UnknownInquiries } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, Metrics } from '@gateway/platform';
import type { Counter } from 'prom-client';
import { LEDGER_EVENTS, LedgerEvents } from '../ledger-events/ledger-events';
import { RecordOperation } from '../record-operation/record-operation.use-case';
import { assertLearnedOutcome, LearnedOutcome } from './learned-outcome';
import { ABANDONED_RESERVATION_AFTER, ABANDONED_RESERVATION_MS, decideResolution, noSuchTransaction, UnknownTransactionKey } from './resolution';

export const UNKNOWN_RESOLUTIONS_METRIC = 'gateway_unknown_resolutions_total';

/** Who learned the outcome: an operator with the acquirer's records, or the gateway asking the acquirer. */
export type ResolutionSource = 'OPERATOR' | 'INQUIRY';

export interface ResolveUnknownCommand extends UnknownTransactionKey {
  learned: LearnedOutcome;
  source: ResolutionSource;
}

export interface ResolveUnknownResult {
  /** RESOLVED: the learned outcome was recorded now. UNCHANGED: the ledger already held it; nothing was written. */
  status: 'RESOLVED' | 'UNCHANGED';
  /** The transaction's stored response as it now stands (what GET and a replay of its request answer). */
  body: JsonObject;
  /** Whether a webhook notification was written with it. */
  notified: boolean;
}

/**
 * Spec, `response.gatewayCode` UNKNOWN: "submitted to acquirer, outcome unknown; code updated if
 * later learned". Records what was learned about a card transaction the ledger holds UNKNOWN,
 * or a card operation's reservation abandoned PENDING (decideResolution), through the ledger's own write path: decided on the order read without a
 * lock and written only if the order row is still that version, else decided again on the
 * locked row (RecordOperation.recordDecided). So it is safe against any operation racing it on
 * the order, with or without the edge's lock, and a resolution racing another records one
 * outcome once. The transaction's notification, as its operation's completion would have written
 * it (what its reservation kept; before that was kept, when its UNKNOWN outcome was announced), is
 * written in the same database transaction (WriteNotification.outcomeLearned), and its queued
 * inquiry deleted (InquireUnknown). Each
 * resolution is logged (ids, outcome, reference: never card data) and counted in
 * `gateway_unknown_resolutions_total{source,outcome}` (docs/decisions/unknown-resolution.md).
 */
@Injectable()
export class ResolveUnknown {
  private readonly resolutions: Counter<string>;

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly records: RecordOperation,
    @Inject(LEDGER_EVENTS) private readonly events: LedgerEvents,
    private readonly inquiries: UnknownInquiries,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
    @Optional() @Inject(ABANDONED_RESERVATION_AFTER) private readonly abandonedAfterMs: number = ABANDONED_RESERVATION_MS,
  ) {
    this.resolutions = metrics.counter(
      UNKNOWN_RESOLUTIONS_METRIC,
      'Card transactions recorded UNKNOWN, or reservations abandoned PENDING, whose outcome was learned later, by who learned it (OPERATOR, INQUIRY) and outcome (APPROVED, PARTIALLY_APPROVED, DECLINED).',
      ['source', 'outcome'],
    );
  }

  async execute(command: ResolveUnknownCommand): Promise<ResolveUnknownResult> {
    const { merchantId, orderId, transactionId, learned, source } = command;
    assertLearnedOutcome(learned);
    // The view must carry the stored response of the operation that created the transaction.
    // With what the transaction kept for its notification while its outcome is open.
    const open = await this.ledger.openTransactionOf(merchantId, orderId, transactionId);
    if (!open) {
      throw noSuchTransaction(command);
    }
    const { apiOperation, announcement } = open;
    let notified = false;
    const recorded = await this.records.recordDecided({
      merchantId,
      orderId,
      transactionId,
      apiOperation,
      noOrder: () => noSuchTransaction(command),
      decide: (order, at) => {
        const decided = decideResolution(order, command, learned, at, this.abandonedAfterMs);
        if ('replay' in decided) {
          return decided;
        }
        // Decided on a view where the outcome is still open, which no record that replaced
        // `announcement` (a completion, another resolution) can have written.
        const event = {
          merchantId,
          orderId,
          transactionId,
          apiOperation,
          notificationUrl: order.order.notificationUrl,
          body: decided.body,
          recordedAt: at,
          reserved: announcement,
        };
        return {
          ...decided,
          alongside: async (manager) => {
            // Nothing is left to ask the acquirer about (InquireUnknown).
            await this.inquiries.remove({ merchantId, orderId, transactionId }, manager);
            notified = (await this.events.outcomeLearned?.(manager, event)) ?? false;
          },
        };
      },
    });
    const about = {
      merchantId,
      orderId,
      transactionId,
      apiOperation,
      source,
      gatewayCode: learned.gatewayCode,
      ...(learned.approvedAmount !== undefined ? { approvedAmount: learned.approvedAmount } : {}),
    };
    if (recorded.replayed) {
      this.logger.info(about, 'outcome already recorded: nothing written');
      return { status: 'UNCHANGED', body: recorded.body, notified: false };
    }
    this.resolutions.inc({ source, outcome: learned.gatewayCode });
    // The acquirer's reference identifies the transaction at the acquirer; no card data is logged.
    this.logger.info(
      { ...about, acquirerTransactionId: learned.acquirerTransactionId, orderStatus: orderStatusOf(recorded.body), notified },
      'UNKNOWN transaction resolved with the outcome learned since',
    );
    return { status: 'RESOLVED', body: recorded.body, notified };
  }
}

function orderStatusOf(body: JsonObject): unknown {
  const order = body.order;
  return order && typeof order === 'object' && !Array.isArray(order) ? order.status : undefined;
}
