import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow, PaymentChanges, PaymentState } from '@gateway/browser-payment/data-access';
import { GatewayError, JsonObject, RequestEnvelope, withoutPersonalData } from '@gateway/contracts';
import type { Money } from '@gateway/money';
import { APP_LOGGER, AppLogger, Metrics, RequestHasher } from '@gateway/platform';
import type { Counter } from 'prom-client';
import { CLOCK, Clock } from '../browser-payment.options';
import { BrowserPaymentLedger } from '../ledger/browser-payment-ledger';
import type { ProviderAdapter } from '../providers/provider-adapter';
import { executed, JourneyStep } from './journey';
import { paymentResponse } from './payment-response';
import { recordedEnd } from './recorded-end';
import { PAYMENT_STORE, PaymentStore } from './payment-store';

/**
 * How long an attempt holds a payment's execution: longer than the provider's execution, the
 * ledger's record and the provider's reversal take at most together (each is bounded by its
 * request timeout, seconds), so a live attempt never loses it; an attempt that died with it
 * holds the payment up for no longer than this.
 */
const EXECUTION_LEASE_MS = 120_000;

export const LEDGER_MISMATCH_METRIC = 'gateway_browser_payment_ledger_mismatch_total';
/**
 * `caught_up`: a step whose commit here was lost after the ledger recorded it, repaired. The
 * other two leave money at the provider that the ledger may not record (an alert watches them).
 */
export const LEDGER_MISMATCH_EVENTS = ['caught_up', 'not_reversed_ledger_unreadable', 'neither_recorded_nor_reversed'] as const;

/** How a step is recorded with the ledger (the ledger's own message is built from it and the payment: BrowserPaymentLedger.record). */
export interface RecordedAs {
  envelope: RequestEnvelope;
  /** The ledger's operation name for the step. */
  apiOperation: string;
  /** The canonical hash of the request that caused the step (the merchant's body, or the step's name). */
  requestHash: string;
  /** The step changes the order's amount and details (the confirm). */
  orderChanged?: boolean;
}

export interface StepOutcome {
  payment: BrowserPaymentRow;
  /** The response body as the ledger recorded it. */
  body: JsonObject;
}

/**
 * A step of a payment: its change and the ledger record of it, together (the change is rolled
 * back if the ledger refuses), and for the steps that execute the payment at the provider, the
 * reversal the ledger protocol asks for when the record is refused.
 */
@Injectable()
export class PaymentSteps {
  private readonly mismatches: Counter<string>;

  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly ledger: BrowserPaymentLedger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly requestHasher: RequestHasher,
    metrics: Metrics,
  ) {
    this.mismatches = metrics.counter(
      LEDGER_MISMATCH_METRIC,
      'Browser payments found out of step with the ledger or the provider, by what was done about it.',
      ['event'],
      // From 0: GatewayBrowserPaymentOutOfStep's increase() sees a process's first one too.
      LEDGER_MISMATCH_EVENTS.map((event) => ({ event })),
    );
  }

  now(): Date {
    return this.clock.now();
  }

  /**
   * How a step of the payer's journey is recorded: under its own ledger operation, with a hash
   * that is the same for every attempt at the step (no merchant body to hash), so a retried step
   * replays instead of recording twice.
   */
  journeyStepRecordedAs(apiOperation: JourneyStep, envelope: RequestEnvelope, payment: BrowserPaymentRow): RecordedAs {
    return { envelope, apiOperation, requestHash: this.requestHasher.hash({ apiOperation, transactionId: payment.transactionId }) };
  }

  /**
   * Applies `changes` to the payment as it is and records it; ORDER_LOCK_LOST if another step moved
   * it first. A step that ends the journey writes the request without the payer's data
   * (keptAtEnd); its record, and the payment it answers, still have the whole request.
   */
  async apply(payment: BrowserPaymentRow, changes: PaymentChanges, adapter: ProviderAdapter, record: RecordedAs): Promise<StepOutcome> {
    const step = keptAtEnd(payment, changes);
    const done = await this.store.transition(payment.id, stateOf(payment), step.written, (updated) =>
      this.recordStep(step.seen(updated), adapter, record),
    );
    if (!done) {
      throw stepLost();
    }
    return { payment: step.seen(done.payment), body: done.outcome };
  }

  /**
   * Executes the approved payment at the provider for `amount` (authorises or moves the money),
   * then completes it with the provider's answer, under the payment's execution lease: one
   * attempt at a time executes, records and, if the ledger refuses the record, reverses the
   * execution at the provider before it lets go. Another attempt meanwhile (the payer reloading
   * the return URL, a merchant's confirm sent twice, the sweep) executes nothing and is answered
   * ORDER_LOCK_LOST, to retry: once this one recorded the payment it finds it moved on; once this
   * one reversed it, the provider declines its execution, which is recorded as such. So no
   * attempt records money the provider no longer holds, nor reverses money another recorded.
   * An ambiguous failure (no answer in time) is not reversed, because the record may have
   * landed: the step is retried instead. An earlier attempt that executed for another amount and
   * was never recorded is refused as such, never recorded as declined over money the provider
   * holds. `alsoChanges`: what the step changes besides the execution's outcome (the confirm's
   * order fields).
   */
  async execute(
    payment: BrowserPaymentRow,
    amount: Money,
    adapter: ProviderAdapter,
    record: RecordedAs,
    alsoChanges: PaymentChanges = {},
  ): Promise<StepOutcome> {
    const lease = await this.claimExecution(payment);
    try {
      const result = await adapter.execute(payment.providerReference, payment.operation, amount);
      if (result.executedFor) {
        throw GatewayError.invalidField(
          'order.amount',
          'INVALID',
          `Value '${amount.toFixed()}' is invalid. The payment was already executed at the provider for ${result.executedFor.toFixed()} ${result.executedFor.currency} by an earlier confirmation whose answer was lost: confirm it again with that amount to record it.`,
        );
      }
      try {
        return await this.apply(payment, { ...alsoChanges, ...executed(result, amount, this.now()) }, adapter, record);
      } catch (err) {
        if (result.approved && refusedForSure(err)) {
          await this.reverseUnlessRecorded(payment, adapter, record.envelope);
        }
        throw err;
      }
    } finally {
      await this.releaseExecution(payment, lease);
    }
  }

  /**
   * Ends an approved payment nobody executed (the merchant's confirm window passed): the provider
   * lets go of the payer's approval, so no later execution can follow, then `changes` (TIMED_OUT)
   * is applied and recorded as `apply` does. Under the execution lease, as an execution is: a
   * confirm under way meanwhile is answered ORDER_LOCK_LOST, and one that comes later finds the
   * approval released at the provider and the payment ended here. Null, with nothing recorded,
   * when the provider holds the payment executed (a confirm whose record has not landed here):
   * that money is the confirm's to record, never timed out.
   */
  async releaseApproval(payment: BrowserPaymentRow, changes: PaymentChanges, adapter: ProviderAdapter, record: RecordedAs): Promise<StepOutcome | null> {
    const lease = await this.claimExecution(payment);
    try {
      return (await adapter.releaseApproval(payment.providerReference)) ? await this.apply(payment, changes, adapter, record) : null;
    } finally {
      await this.releaseExecution(payment, lease);
    }
  }

  /** The payment's execution lease, claimed in the state it was read in: ORDER_LOCK_LOST if another attempt holds it. */
  private async claimExecution(payment: BrowserPaymentRow): Promise<Date> {
    const lease = new Date(this.now().getTime() + EXECUTION_LEASE_MS);
    if (!(await this.store.claimExecution(payment.id, stateOf(payment), lease, this.now()))) {
      throw stepLost();
    }
    return lease;
  }

  private async releaseExecution(payment: BrowserPaymentRow, lease: Date): Promise<void> {
    await this.store.releaseExecution(payment.id, lease).catch((err: unknown) =>
      this.logger.warn({ err, paymentId: payment.id }, 'execution lease not released; it lapses on its own'),
    );
  }

  /**
   * Reverses an approved execution whose record the ledger refused, unless the ledger holds the
   * payment as a success after all. That happens when an earlier attempt's record landed and
   * its own commit here failed: the payment still looks due here, this attempt executed it again
   * (the provider answered the same execution), and the ledger refused this attempt's record as
   * another request under the same transaction id. Reversing then would give back money the
   * ledger records; instead the payment catches up with the ledger. Nor is anything reversed when
   * the ledger cannot be read: as with a record whose fate is unknown, money the ledger may
   * record is never given back.
   */
  private async reverseUnlessRecorded(payment: BrowserPaymentRow, adapter: ProviderAdapter, envelope: RequestEnvelope): Promise<void> {
    const context = { provider: payment.provider, providerReference: payment.providerReference, paymentId: payment.id };
    let completion: PaymentChanges | null;
    try {
      completion = recordedEnd(await this.ledger.readRecord(envelope, payment), payment);
    } catch (err) {
      this.mismatches.inc({ event: 'not_reversed_ledger_unreadable' });
      this.logger.error({ err, ...context }, 'browser payment executed at the provider, its record refused, and the ledger unreadable: not reversed');
      return;
    }
    if (completion?.result === 'SUCCESS') {
      this.logger.warn(context, 'browser payment record refused, but the ledger holds it as a success: kept at the provider');
      await this.adopt(payment, completion);
      return;
    }
    await adapter.reverse(payment.providerReference).catch((err: unknown) => {
      this.mismatches.inc({ event: 'neither_recorded_nor_reversed' });
      this.logger.error({ err, ...context }, 'browser payment executed at the provider but neither recorded nor reversed');
    });
  }

  /**
   * The payment as the ledger records it: when the ledger holds its end (a completion, a payer's
   * cancellation, a time-out) and the payment here does not (a step whose record landed and whose
   * commit here failed), the payment catches up. `recorded` is the ledger's stored response if the
   * caller has it (a replay), else it is read. Never throws: a payment that cannot catch up now
   * is returned as it was.
   */
  async catchUp(payment: BrowserPaymentRow, envelope: RequestEnvelope, recorded?: JsonObject): Promise<BrowserPaymentRow> {
    if (payment.result !== 'PENDING') {
      return payment;
    }
    try {
      const end = recordedEnd(recorded ?? (await this.ledger.readRecord(envelope, payment)), payment);
      return end ? await this.adopt(payment, end) : payment;
    } catch (err) {
      this.logger.warn({ err, paymentId: payment.id }, 'browser payment not brought up to the ledger\'s record of it');
      return payment;
    }
  }

  private async adopt(payment: BrowserPaymentRow, completion: PaymentChanges): Promise<BrowserPaymentRow> {
    try {
      const step = keptAtEnd(payment, completion);
      const done = await this.store.transition(payment.id, stateOf(payment), step.written, async () => undefined);
      if (done) {
        this.mismatches.inc({ event: 'caught_up' });
        this.logger.warn({ paymentId: payment.id, result: completion.result }, 'browser payment brought up to the ledger\'s record of it');
        return step.seen(done.payment);
      }
      return (await this.store.findById(payment.id)) ?? payment;
    } catch (err) {
      this.logger.error({ err, paymentId: payment.id }, 'browser payment the ledger records as completed not brought up to date here');
      return payment;
    }
  }

  private recordStep(payment: BrowserPaymentRow, adapter: ProviderAdapter, record: RecordedAs): Promise<JsonObject> {
    return this.ledger.record({
      envelope: record.envelope,
      payment,
      apiOperation: record.apiOperation,
      requestHash: record.requestHash,
      mode: 'UPDATE',
      response: paymentResponse(payment, adapter.acquirerId),
      orderChanged: record.orderChanged ?? false,
    });
  }
}

/**
 * What a step writes, and the payment as the rest of the request sees it (docs/decisions/payer-personal-data.md,
 * item 4). A step that ends the journey (moves `result` out of PENDING: the execution's
 * completion, the payer's cancellation, the sweep's TIMED_OUT, a catch-up with the ledger's end)
 * writes, in the same UPDATE, the request without the payer's personal data, as the erasure strips
 * it (contracts' withoutPersonalData: the customer, shipping, the order's custom fields and note,
 * the transaction's merchant note; the request's copies of the return and notification URLs cut).
 * Nothing reads those once the journey is over: replays answer the ledger's stored responses, and
 * the ledger holds the order's details; the confirm reads the request only while PENDING. Kept as
 * they are: `provider_details` (every later CAPTURE, VOID and REFUND answers it in
 * `sourceOfFunds.provided`), `return_url` (a payer's browser coming back after the end is sent to
 * it, with the merchant's own query) and the rest of the request (`sourceOfFunds`, the order's
 * amounts and items, the provider's options).
 *
 * `seen`: the step's ledger record (the completion's response and, for the confirm, the order's
 * details and notification URL) and the caller still get the whole request. It is the request
 * the step read (or the one the confirm writes): the UPDATE is conditional on the payment's id
 * and PENDING state, and nothing writes a PENDING payment's request but a step that moves it out
 * of that state (the erasure and the retention write finished payments only; an initiate that
 * replaces an unrecorded payment gives the row a new id).
 */
function keptAtEnd(payment: BrowserPaymentRow, changes: PaymentChanges): { written: PaymentChanges; seen: (row: BrowserPaymentRow) => BrowserPaymentRow } {
  const request = changes.request ?? payment.request;
  const ends = payment.result === 'PENDING' && changes.result !== undefined && changes.result !== 'PENDING';
  const kept = ends ? withoutPersonalData(request) : request;
  return kept === request ? { written: changes, seen: (row) => row } : { written: { ...changes, request: kept }, seen: (row) => ({ ...row, request }) };
}

function stateOf(payment: BrowserPaymentRow): PaymentState {
  return { interactionStatus: payment.interactionStatus, result: payment.result };
}

function stepLost(): GatewayError {
  return new GatewayError('ORDER_LOCK_LOST', {
    explanation: 'Another operation changed the payment while this one was in progress. Please retry the request.',
  });
}

function refusedForSure(err: unknown): boolean {
  return err instanceof GatewayError && (err.code === 'ORDER_LOCK_LOST' || err.httpStatus < 500);
}
