import { Inject, Injectable, Optional } from '@nestjs/common';
import { AcquirerRegistry, InquiryRequest, InquiryResult } from '@gateway/acquirer';
import { GatewayError } from '@gateway/contracts';
import { ClaimedInquiry, LedgerRepository, UnknownInquiries } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { storedAcquirerId, storedAcquirerReference } from '../card-operation/acquirer-reference';
import { withinWait } from '../card-operation/timed-out-reversal';
import type { LearnedOutcome } from './learned-outcome';
import { ABANDONED_RESERVATION_AFTER, ABANDONED_RESERVATION_MS, isAbandonedReservation } from './resolution';
import { ResolveUnknown } from './resolve-unknown.use-case';

export const UNKNOWN_INQUIRY_OPTIONS = Symbol('UNKNOWN_INQUIRY_OPTIONS');

export interface UnknownInquiryOptions {
  /** A transaction is asked about once its UNKNOWN outcome is this old (UNKNOWN_INQUIRY_AFTER_MS). */
  afterMs: number;
  /** Inquiries one round claims at most (UNKNOWN_INQUIRY_BATCH_SIZE). */
  batchSize: number;
  /** The wait after an inquiry that learned nothing, doubled after each such inquiry, up to RETRY_MAX_MS. */
  retryBaseMs: number;
}

/** What one round did. */
export interface InquiryRound {
  claimed: number;
  resolved: number;
  /** Asked again later: the acquirer could not tell yet, did not answer, or answered what the gateway does not record by itself (logged). */
  retried: number;
  /** Dropped from the queue: resolved meanwhile, or nothing an acquirer could be asked about. */
  dropped: number;
  /** Given back unasked, the process stopping: claimable again at once. */
  released: number;
}

/** A hung acquirer holds one inquiry this long at most; the round goes on with the next. */
export const INQUIRY_WAIT_MS = 10_000;
/** The longest wait between two inquiries about one transaction. */
const RETRY_MAX_MS = 3_600_000;

/** The operations the ledger records and an acquirer can be asked about: the creating operation of a card transaction. */
const INQUIRED_OPERATIONS: ReadonlySet<string> = new Set<InquiryRequest['operation']>(['VERIFY', 'AUTHORIZE', 'PAY', 'REFUND', 'CAPTURE', 'VOID']);

type Inquired = 'RESOLVED' | 'RETRIED' | 'DROPPED';

/**
 * The gateway learning the outcome of its UNKNOWN card transactions by itself: each round
 * claims the inquiries queued when a transaction was recorded UNKNOWN (RecordOperation), once
 * they are `afterMs` old, asks the acquirer by the identifiers the original call carried (the
 * acquirer's reference, when its answer gave one: the stored response keeps it), and records
 * what it learns through ResolveUnknown, the operator's own path. An acquirer that cannot tell
 * yet, or does not answer, is asked again later with a doubling wait. Claims lock and lease
 * their rows (UnknownInquiries.claim), so every replica may run rounds; and should two ever ask
 * about one transaction, the ledger records its outcome once (ResolveUnknown).
 */
@Injectable()
export class InquireUnknown {
  constructor(
    private readonly inquiries: UnknownInquiries,
    private readonly ledger: LedgerRepository,
    private readonly acquirers: AcquirerRegistry,
    private readonly resolution: ResolveUnknown,
    @Inject(UNKNOWN_INQUIRY_OPTIONS) private readonly options: UnknownInquiryOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    @Optional() @Inject(ABANDONED_RESERVATION_AFTER) private readonly abandonedAfterMs: number = ABANDONED_RESERVATION_MS,
  ) {}

  /**
   * One round. `stopping` is asked before each inquiry: a process shutting down (its NATS
   * requests not drained yet, its grace period running) asks no more, rather than keep it for
   * up to a whole batch of INQUIRY_WAIT_MS, and gives the claims it leaves unasked back, so
   * another replica asks about them at its next round rather than once their lease runs out.
   */
  async round(now: Date = new Date(), stopping: () => boolean = () => false): Promise<InquiryRound> {
    // Longer than the round can take, so no other claim takes these rows while it runs.
    const leaseUntil = new Date(now.getTime() + this.options.batchSize * INQUIRY_WAIT_MS + 60_000);
    const claimed = await this.inquiries.claim({
      now,
      recordedBefore: new Date(now.getTime() - this.options.afterMs),
      limit: this.options.batchSize,
      leaseUntil,
    });
    const round: InquiryRound = { claimed: claimed.length, resolved: 0, retried: 0, dropped: 0, released: 0 };
    // One at a time: the queue holds the rare lost answers, and an acquirer is not to be flooded.
    for (const [index, inquiry] of claimed.entries()) {
      if (stopping()) {
        round.released = await this.release(claimed.slice(index), leaseUntil);
        break;
      }
      const inquired = await this.inquireSafely(inquiry);
      if (inquired === 'RESOLVED') round.resolved += 1;
      else if (inquired === 'RETRIED') round.retried += 1;
      else round.dropped += 1;
    }
    return round;
  }

  private async release(unasked: ClaimedInquiry[], leaseUntil: Date): Promise<number> {
    try {
      return await this.inquiries.release(unasked, leaseUntil);
    } catch (err) {
      this.logger.warn({ err, unasked: unasked.length }, 'claimed inquiries not given back; they are asked once their lease runs out');
      return 0;
    }
  }

  private async inquireSafely(inquiry: ClaimedInquiry): Promise<Inquired> {
    try {
      return await this.inquire(inquiry);
    } catch (err) {
      this.logger.error({ err, ...keyOf(inquiry) }, 'inquiry about an UNKNOWN transaction failed; asked again later');
      return this.retryLater(inquiry, 'ERROR').catch(() => 'RETRIED' as const);
    }
  }

  private async inquire(inquiry: ClaimedInquiry): Promise<Inquired> {
    const key = keyOf(inquiry);
    const apiOperation = await this.ledger.operationOf(key.merchantId, key.orderId, key.transactionId);
    const seen = apiOperation ? await this.ledger.findForBegin(key.merchantId, key.orderId, key.transactionId, apiOperation) : null;
    const transaction = seen?.contents.transactions.find((t) => t.transactionId === key.transactionId);
    // UNKNOWN (queued by its record), or a card reservation abandoned PENDING (queued by a read
    // that met it, AbandonedReservations): either way the acquirer's answer never reached the ledger.
    const open = transaction && (transaction.result === 'UNKNOWN' || isAbandonedReservation(transaction, new Date(), this.abandonedAfterMs));
    if (!apiOperation || !seen || !open || !INQUIRED_OPERATIONS.has(apiOperation)) {
      // Resolved meanwhile (by an operator, or a late completion), or nothing an acquirer could be asked about.
      await this.inquiries.remove(key);
      return 'DROPPED';
    }
    let answer: InquiryResult;
    let acquirerId: string;
    try {
      const stored = seen.contents.stored?.body ?? null;
      const request: InquiryRequest = {
        ...key,
        operation: apiOperation as InquiryRequest['operation'],
        reference: storedAcquirerReference(stored),
      };
      // Where the transaction went when it names an acquirer (a capture of a test-era order made
      // after a switch to LIVE went to the test acquirer); else as the merchant's mode then routed
      // it. The sweep queues without a mode: every card reservation's body names its acquirer.
      const recordedAcquirerId = storedAcquirerId(stored);
      if (!recordedAcquirerId && !inquiry.merchantMode) {
        this.logger.warn({ ...key }, 'no acquirer to ask about a transaction: its stored response names none and no merchant mode was queued; record it with `transactions resolve`');
        return this.retryLater(inquiry, 'NO_ACQUIRER');
      }
      const connector = this.acquirers.forMerchantMode(inquiry.merchantMode, recordedAcquirerId);
      acquirerId = connector.acquirerId;
      answer = await withinWait(connector.inquire(request), INQUIRY_WAIT_MS, 'the inquiry');
    } catch (err) {
      this.logger.warn({ err, ...key }, 'the acquirer did not answer an inquiry about an UNKNOWN transaction; asked again later');
      return this.retryLater(inquiry, 'ERROR');
    }
    if (answer.result === 'UNKNOWN' || answer.result === 'PENDING') {
      this.logger.info({ ...key, gatewayCode: answer.gatewayCode }, 'the acquirer cannot tell the outcome of an UNKNOWN transaction yet; asked again later');
      return this.retryLater(inquiry, answer.gatewayCode);
    }
    // An answer not recorded stays queued and is asked about again with the doubling wait, rather
    // than leave the queue: a read or the sweep would queue an abandoned reservation again at once,
    // to be asked every round. An operator's `transactions resolve` dequeues it.
    const learned = learnedFrom(answer, acquirerId);
    if (!learned) {
      this.logger.warn(
        { ...key, gatewayCode: answer.gatewayCode },
        'the acquirer answered an outcome the gateway does not record by itself: record it with `transactions resolve`; asked again later',
      );
      return this.retryLater(inquiry, answer.gatewayCode);
    }
    try {
      const resolved = await this.resolution.execute({ ...key, learned, source: 'INQUIRY' });
      if (resolved.status === 'UNCHANGED') {
        await this.inquiries.remove(key);
      }
      return 'RESOLVED';
    } catch (err) {
      if (err instanceof GatewayError && err.httpStatus < 500) {
        // An answer the ledger refuses (logged): a person decides. Resolved meanwhile: the next
        // claim finds it so and dequeues it.
        this.logger.warn(
          { ...key, gatewayCode: answer.gatewayCode, explanation: err.explanation },
          'learned outcome not recorded; left to an operator (`transactions resolve`), asked again later',
        );
        return this.retryLater(inquiry, `REFUSED ${answer.gatewayCode}`);
      }
      throw err;
    }
  }

  private async retryLater(inquiry: ClaimedInquiry, lastResult: string): Promise<'RETRIED'> {
    const waitMs = Math.min(RETRY_MAX_MS, this.options.retryBaseMs * 2 ** Math.max(0, inquiry.attempts - 1));
    await this.inquiries.retryAt(keyOf(inquiry), new Date(Date.now() + waitMs), lastResult);
    return 'RETRIED';
  }
}

/**
 * What `acquirerId`'s answer says was learned: the issuer approved (APPROVED), approved part of it
 * (PARTIALLY_APPROVED, with the amount it approved: ResolveUnknown records it only where the
 * request accepted partial amounts, and refuses it otherwise, for an operator), or nothing moved
 * (any FAILURE: declined, or unknown to the acquirer; its codes kept). A partial approval that
 * does not say what was approved, or another success, is not recorded by itself: null.
 */
export function learnedFrom(answer: InquiryResult, acquirerId: string): LearnedOutcome | null {
  const codes = {
    ...(answer.acquirerCode !== undefined ? { acquirerCode: answer.acquirerCode } : {}),
    ...(answer.acquirerMessage !== undefined ? { acquirerMessage: answer.acquirerMessage } : {}),
  };
  const approval = {
    ...(answer.acquirerTransactionId !== undefined ? { acquirerTransactionId: answer.acquirerTransactionId, acquirerId } : {}),
    ...(answer.authorizationCode !== undefined ? { authorizationCode: answer.authorizationCode } : {}),
    ...codes,
  };
  if (answer.result === 'SUCCESS' && answer.gatewayCode === 'APPROVED') {
    return { gatewayCode: 'APPROVED', ...approval };
  }
  if (answer.result === 'SUCCESS' && answer.gatewayCode === 'PARTIALLY_APPROVED' && answer.approvedAmount !== undefined) {
    // Exact decimal text: the amount never passes through a JS number.
    return { gatewayCode: 'PARTIALLY_APPROVED', approvedAmount: answer.approvedAmount.toFixed(), approvedCurrency: answer.approvedAmount.currency, ...approval };
  }
  return answer.result === 'FAILURE' ? { gatewayCode: 'DECLINED', ...codes } : null;
}

function keyOf({ merchantId, orderId, transactionId }: ClaimedInquiry) {
  return { merchantId, orderId, transactionId };
}
