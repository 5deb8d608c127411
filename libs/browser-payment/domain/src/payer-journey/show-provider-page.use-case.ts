import { Injectable } from '@nestjs/common';
import type { PayerReply, PayerStepMessage } from '@gateway/contracts';
import { journeyOverPage } from '../pages/journey-pages';
import { JOURNEY_STEPS, redirected } from '../payment/journey';
import { PaymentSteps } from '../payment/payment-steps';
import { ProviderAdapters } from '../providers/provider-adapters';
import { PayerJourneys } from './payer-journeys';

/**
 * GET /bpui/<provider>/out/BP-... (under the order lock): the payer leaves for the provider.
 * The first visit marks the payment REDIRECTED_TO_PROVIDER in the ledger; a reload shows the
 * provider's page again without changing anything.
 */
@Injectable()
export class ShowProviderPage {
  constructor(
    private readonly journeys: PayerJourneys,
    private readonly providers: ProviderAdapters,
    private readonly steps: PaymentSteps,
  ) {}

  async execute(message: PayerStepMessage): Promise<PayerReply> {
    const found = await this.journeys.find(message.provider, message.token, message.envelope.merchant.id);
    if (found.page) {
      return found.page;
    }
    let payment = found.payment;
    const adapter = this.providers.forPayment(payment);
    if (payment.interactionStatus === 'INITIATED') {
      const record = this.steps.journeyStepRecordedAs(JOURNEY_STEPS.redirected, message.envelope, payment);
      ({ payment } = await this.steps.apply(payment, redirected(this.steps.now()), adapter, record));
    } else if (payment.interactionStatus !== 'REDIRECTED_TO_PROVIDER') {
      return journeyOverPage();
    }
    const merchant = message.envelope.merchant;
    return adapter.payerPage({
      payment,
      merchantName: merchant.name ?? merchant.id,
      returnUrl: this.journeys.returnUrl(message.provider, message.token),
      decisionPath: (decision) => this.journeys.decisionPath(message.provider, message.token, decision),
    });
  }
}
