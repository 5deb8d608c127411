import { Injectable } from '@nestjs/common';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import type { PayerReply, PayerStepMessage, RequestEnvelope } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { journeyNotStartedPage } from '../pages/journey-pages';
import { completionDue, JOURNEY_STEPS, returned } from '../payment/journey';
import { PaymentSteps } from '../payment/payment-steps';
import type { PayerReturn, ProviderAdapter } from '../providers/provider-adapter';
import { ProviderAdapters } from '../providers/provider-adapters';
import { PayerJourneys } from './payer-journeys';

/**
 * GET /bpui/<provider>/in/BP-... (under the order lock): the payer is back from the provider.
 * The payment is RETURNED_TO_MERCHANT with what the provider says (approved, or cancelled:
 * the transaction fails); a CONFIRM_AT_PROVIDER payment the payer approved is then executed at
 * the provider and COMPLETED (PAY: captured; AUTHORIZE: authorised). Each step is its own
 * ledger record. Then the browser goes to the merchant's returnUrl. The token's journey ends
 * here: the same URL again changes nothing and sends the payer to the merchant again. The way
 * back stays open past the token's expiry while the payment is PENDING (PayerJourneys.find).
 * Before the payer was sent to the provider (the out URL), the in URL only answers a page.
 */
@Injectable()
export class ReturnFromProvider {
  constructor(
    private readonly journeys: PayerJourneys,
    private readonly providers: ProviderAdapters,
    private readonly steps: PaymentSteps,
  ) {}

  async execute(message: PayerStepMessage): Promise<PayerReply> {
    const found = await this.journeys.find(message.provider, message.token, message.envelope.merchant.id, { returning: true });
    if (found.ended) {
      // Back again (a double-submitted button, a reload after a lost answer): to the merchant as before.
      return this.journeys.toMerchant(found.ended);
    }
    if (found.page) {
      return found.page;
    }
    let payment = found.payment;
    const adapter = this.providers.forPayment(payment);
    if (payment.interactionStatus === 'INITIATED') {
      // Back from where it never went: the interaction runs INITIATED → REDIRECTED_TO_PROVIDER →
      // RETURNED_TO_MERCHANT, and the payment stays open for its payment link.
      return journeyNotStartedPage();
    }
    if (payment.interactionStatus === 'REDIRECTED_TO_PROVIDER') {
      payment = await this.recordReturn(message.envelope, payment, adapter, await adapter.payerReturned(payment.providerReference));
    }
    if (completionDue(payment)) {
      payment = await this.complete(message.envelope, payment, adapter);
    }
    return this.journeys.toMerchant(payment);
  }

  /** The return's first half: RETURNED_TO_MERCHANT with what the provider says (cancelled: the transaction fails). The sweep runs it too. */
  async recordReturn(envelope: RequestEnvelope, payment: BrowserPaymentRow, adapter: ProviderAdapter, back: PayerReturn): Promise<BrowserPaymentRow> {
    const record = this.steps.journeyStepRecordedAs(JOURNEY_STEPS.returned, envelope, payment);
    return (await this.steps.apply(payment, returned(back, this.steps.now()), adapter, record)).payment;
  }

  /** The return's second half, when `completionDue`: the approved CONFIRM_AT_PROVIDER payment executed at the provider and COMPLETED. The sweep runs it too. */
  async complete(envelope: RequestEnvelope, payment: BrowserPaymentRow, adapter: ProviderAdapter): Promise<BrowserPaymentRow> {
    const record = this.steps.journeyStepRecordedAs(JOURNEY_STEPS.completed, envelope, payment);
    return (await this.steps.execute(payment, Money.of(payment.amount, payment.currency), adapter, record)).payment;
  }
}
