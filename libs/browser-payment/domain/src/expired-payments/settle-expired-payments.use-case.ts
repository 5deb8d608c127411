import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import { GatewayError } from '@gateway/contracts';
import type {
  ExpiredPaymentsQuery,
  ExpiredPaymentsReply,
  RequestEnvelope,
  SettleExpiredPaymentMessage,
  SettleExpiredPaymentReply,
} from '@gateway/contracts';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { BROWSER_PAYMENT_OPTIONS, BrowserPaymentOptions } from '../browser-payment.options';
import { completionDue, confirmAwaited, confirmWindowPassed, expiryDue, JOURNEY_STEPS, TIMED_OUT } from '../payment/journey';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { PaymentSteps } from '../payment/payment-steps';
import type { ProviderAdapter } from '../providers/provider-adapter';
import { ProviderAdapters } from '../providers/provider-adapters';

/**
 * A journey whose redirect token expired can no longer be moved by the payer, so the gateway
 * ends it (the edge's sweep, under the order lock): whatever the provider has from the payer is
 * acted on as the payer's return would have, and a journey that got nowhere fails.
 *
 * - Returned and approved, CONFIRM_AT_PROVIDER, its execution never recorded (the ledger was
 *   unreachable when the payer came back, and the payer did not try again): executed at the
 *   provider and COMPLETED, as the return would have. The provider answers an execution already
 *   made as done, so money it holds is recorded, never taken twice.
 * - At the provider: asked what the payer did. Approved: RETURNED_TO_MERCHANT, then as above
 *   (CONFIRM_AT_PROVIDER) or waiting for the merchant's confirm (CONFIRM_AT_MERCHANT). Anything
 *   else: TIMED_OUT (asking ends an undecided payment at the provider, so the payer cannot
 *   approve it afterwards).
 * - Never sent to the provider: TIMED_OUT; DISCARDED if the ledger never recorded its initiate
 *   (answered LOCK_FAILURE): the journey is removed, so the transaction id can be used again.
 * - Returned and approved, CONFIRM_AT_MERCHANT, and the merchant's confirm window
 *   (`confirmWindowMs` since the return) passed without a confirm: the approval is released at
 *   the provider (no confirm can execute it afterwards) and the payment TIMED_OUT. Left alone
 *   while the provider holds it executed (a confirm whose record has not landed: the confirm
 *   retried records it).
 *
 * TIMED_OUT is `result` FAILURE with `response.gatewayCode` TIMED_OUT; the interaction status
 * stays where the journey stopped.
 */
@Injectable()
export class SettleExpiredPayments {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly providers: ProviderAdapters,
    private readonly steps: PaymentSteps,
    private readonly returns: ReturnFromProvider,
    @Inject(BROWSER_PAYMENT_OPTIONS) private readonly options: Pick<BrowserPaymentOptions, 'confirmWindowMs'>,
  ) {}

  /** Expiry is judged by the database's clock, as the payer's steps judge it (PayerJourneys.find), never this replica's. */
  async due(query: ExpiredPaymentsQuery): Promise<ExpiredPaymentsReply> {
    const now = await this.store.databaseNow();
    const returnedBy = new Date(now.getTime() - this.options.confirmWindowMs);
    return { payments: await this.store.findExpired(now, returnedBy, query.limit, query.after) };
  }

  async settle(message: SettleExpiredPaymentMessage): Promise<SettleExpiredPaymentReply> {
    const { envelope } = message;
    let payment = await this.store.findById(message.paymentId);
    const now = await this.store.databaseNow();
    // Settled by another sweep, moved by a step, or not this merchant's: nothing to do.
    if (!payment || payment.merchantId !== envelope.merchant.id || !expiryDue(payment, now, this.options.confirmWindowMs)) {
      return { outcome: 'NOT_DUE' };
    }
    const adapter = this.providers.forPayment(payment);
    if (payment.interactionStatus === 'REDIRECTED_TO_PROVIDER') {
      const back = await adapter.payerReturned(payment.providerReference);
      if (back.outcome === 'APPROVED') {
        payment = await this.returns.recordReturn(envelope, payment, adapter, back);
      }
    }
    if (completionDue(payment)) {
      await this.returns.complete(envelope, payment, adapter);
      return { outcome: 'COMPLETED' };
    }
    if (confirmAwaited(payment) && !confirmWindowPassed(payment, now, this.options.confirmWindowMs)) {
      return { outcome: 'RETURNED' };
    }
    return this.timeOut(envelope, payment, adapter);
  }

  /**
   * A journey that got nowhere, or an approval the merchant never confirmed (released at the
   * provider first): TIMED_OUT; DISCARDED when the ledger never held it; NOT_DUE when the ledger
   * holds its end already; RETURNED when the provider holds the approval executed.
   */
  private async timeOut(envelope: RequestEnvelope, payment: BrowserPaymentRow, adapter: ProviderAdapter): Promise<SettleExpiredPaymentReply> {
    const record = this.steps.journeyStepRecordedAs(JOURNEY_STEPS.timedOut, envelope, payment);
    try {
      if (!confirmAwaited(payment)) {
        await this.steps.apply(payment, TIMED_OUT, adapter, record);
        return { outcome: 'TIMED_OUT' };
      }
      if (await this.steps.releaseApproval(payment, TIMED_OUT, adapter, record)) {
        return { outcome: 'TIMED_OUT' };
      }
      // Executed at the provider by a confirm whose record has not landed here: the confirm's to
      // record. If the ledger holds it already (the commit here was lost), the payment catches up.
      return (await this.steps.catchUp(payment, envelope)) !== payment ? { outcome: 'NOT_DUE' } : { outcome: 'RETURNED' };
    } catch (err) {
      if (payment.interactionStatus === 'INITIATED' && unknownToTheLedger(err) && (await this.store.discardUnrecorded(payment.id))) {
        return { outcome: 'DISCARDED' };
      }
      // The ledger already holds the journey's end (the payer's cancellation, say, whose commit
      // here was lost): it refuses to write over it, and the payment here takes it instead.
      if (refusedByTheLedger(err) && (await this.steps.catchUp(payment, envelope)) !== payment) {
        return { outcome: 'NOT_DUE' };
      }
      throw err;
    }
  }
}

/**
 * The ledger refused the step because it holds no transaction under the payment's id: the
 * initiate's own record was refused (a stale fencing token, answered LOCK_FAILURE), so the
 * journey never reached the merchant and nothing of it was recorded or paid.
 */
function unknownToTheLedger(err: unknown): boolean {
  return err instanceof GatewayError && err.code === 'INVALID_FIELD' && err.field === 'transactionid';
}

function refusedByTheLedger(err: unknown): boolean {
  return err instanceof GatewayError && err.httpStatus < 500;
}
