import { Inject, Injectable, Optional } from '@nestjs/common';
import { AcquirerRegistry, AcquirerTransactionReference, VoidRequest } from '@gateway/acquirer';
import type { MerchantContext } from '@gateway/contracts';
import { APP_LOGGER, AppLogger, Metrics } from '@gateway/platform';
import type { Counter } from 'prom-client';
import type { OperationOutcome } from './operation-outcome';

export const TIMED_OUT_REVERSALS_METRIC = 'gateway_timed_out_reversals_total';

/**
 * How long the operation waits for the reversal. The edge waits NATS_REQUEST_TIMEOUT_MS (10 s)
 * for the whole operation, whose own call may have taken REFUND_CALL_TIMEOUT_MS (5 s) through
 * the vault: a reversal still unanswered after this is counted FAILED and left to run, and the
 * decline is answered in time.
 */
export const REVERSAL_WAIT_MS = 3_000;

/** Overrides REVERSAL_WAIT_MS (tests). */
export const REVERSAL_WAIT = Symbol('REVERSAL_WAIT');

/** How a reversal attempt ended. */
export const REVERSAL_OUTCOMES = ['REVERSED', 'REFUSED', 'FAILED', 'NO_REFERENCE'] as const;
export type ReversalOutcome = (typeof REVERSAL_OUTCOMES)[number];

/** The card transaction the acquirer answered TIMED_OUT. */
export interface TimedOutTransaction {
  merchant: MerchantContext;
  orderId: string;
  transactionId: string;
  type: VoidRequest['targetType'];
}

/**
 * Spec, `response.gatewayCode` TIMED_OUT: "treat as declined; the gateway tries to reverse". An
 * acquirer answers TIMED_OUT when it gave up waiting for the issuer, whose late approval may
 * still hold the payer's funds (an authorisation, a payment) or credit them (a refund). The
 * transaction is recorded as the decline it is; before that, while the order's reservation still
 * holds its amount, the gateway asks the acquirer to reverse it: a void of the transaction by the
 * reference the TIMED_OUT answer carried. What the reversal comes to never changes the answer
 * (the spec's decline): one refused, unanswered or impossible (no reference) is logged with the
 * order and transaction and counted in `gateway_timed_out_reversals_total{outcome}`, to be
 * reconciled with the acquirer (docs/operations/README.md).
 *
 * Only an answered TIMED_OUT is reversed: a call with no answer at all (UNKNOWN) gave no
 * reference to reverse by, and keeps its amount reserved (refund-reservation.md).
 */
@Injectable()
export class TimedOutReversal {
  private readonly reversals: Counter<string>;
  private readonly waitMs: number;

  constructor(
    private readonly acquirers: AcquirerRegistry,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
    @Optional() @Inject(REVERSAL_WAIT) waitMs?: number,
  ) {
    this.waitMs = waitMs ?? REVERSAL_WAIT_MS;
    this.reversals = metrics.counter(
      TIMED_OUT_REVERSALS_METRIC,
      'Reversals of card transactions the acquirer answered TIMED_OUT, by outcome (REVERSED, REFUSED, FAILED, NO_REFERENCE).',
      ['outcome'],
      // From 0: GatewayTimedOutReversalNotDone's increase() sees a process's first one too.
      REVERSAL_OUTCOMES.map((outcome) => ({ outcome })),
    );
  }

  /** `outcome` as it is, once a TIMED_OUT one was reversed (or the attempt failed). */
  async afterCall<T extends OperationOutcome>(outcome: T, transaction: TimedOutTransaction): Promise<T> {
    if (outcome.gatewayCode === 'TIMED_OUT') {
      this.reversals.inc({ outcome: await this.reverse(outcome, transaction) });
    }
    return outcome;
  }

  private async reverse(outcome: OperationOutcome, transaction: TimedOutTransaction): Promise<ReversalOutcome> {
    const { merchant, orderId, transactionId, type } = transaction;
    const about = { orderId, transactionId, type };
    const target = referenceOf(outcome);
    if (!target) {
      this.logger.error(about, 'TIMED_OUT answer without the acquirer\'s reference: the transaction could not be reversed; reconcile it with the acquirer');
      return 'NO_REFERENCE';
    }
    try {
      const request = { merchantId: merchant.id, orderId, transactionId, target, targetType: type };
      // At the acquirer that answered TIMED_OUT (a refund of a test-era order after a switch to LIVE too).
      const connector = this.acquirers.forRecordedAcquirer(acquirerIdOf(outcome), merchant);
      const reversal = await withinWait(connector.void(request), this.waitMs, 'the reversal');
      if (reversal.result === 'SUCCESS') {
        this.logger.info(about, 'TIMED_OUT transaction reversed at the acquirer');
        return 'REVERSED';
      }
      this.logger.warn({ ...about, gatewayCode: reversal.gatewayCode }, 'the acquirer refused to reverse a TIMED_OUT transaction; reconcile it with the acquirer');
      return 'REFUSED';
    } catch (err) {
      this.logger.error({ ...about, err }, 'reversal of a TIMED_OUT transaction failed; reconcile it with the acquirer');
      return 'FAILED';
    }
  }
}

/** The acquirer's reference of the timed-out transaction, from its answer. */
function referenceOf(outcome: OperationOutcome): AcquirerTransactionReference | undefined {
  const acquirerTransactionId = outcome.acquirer?.transactionId;
  if (typeof acquirerTransactionId !== 'string' || acquirerTransactionId === '') {
    return undefined;
  }
  return { acquirerTransactionId, ...(outcome.receipt ? { receipt: outcome.receipt } : {}) };
}

/** The acquirer that answered, as its answer names it. */
function acquirerIdOf(outcome: OperationOutcome): string | undefined {
  const id = outcome.acquirer?.id;
  return typeof id === 'string' ? id : undefined;
}

/** `call`'s answer, or a rejection once `ms` have passed without one (`what` names the call in it). */
export async function withinWait<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}
