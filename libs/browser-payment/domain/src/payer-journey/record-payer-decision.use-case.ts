import { Injectable } from '@nestjs/common';
import type { PayerDecisionMessage, PayerReply } from '@gateway/contracts';
import { decisionBeforeJourneyPage, paymentNotFoundPage } from '../pages/journey-pages';
import { completionDue } from '../payment/journey';
import { isSimulated } from '../providers/provider-adapter';
import { ProviderAdapters } from '../providers/provider-adapters';
import { PayerJourneys } from './payer-journeys';

/**
 * POST /bpui/<provider>/out/BP-.../approve|cancel: the payer's choice on a simulator's page.
 * This happens "at the provider": only the simulator's books change, and the payer is sent
 * back to the gateway's return address, where the gateway asks the provider what happened.
 * Only a payer who was sent to the provider page can decide, once; a decision after the payer
 * is back (the button submitted twice) changes nothing and sends the browser to the return.
 */
@Injectable()
export class RecordPayerDecision {
  constructor(
    private readonly journeys: PayerJourneys,
    private readonly providers: ProviderAdapters,
  ) {}

  async execute(message: PayerDecisionMessage): Promise<PayerReply> {
    const found = await this.journeys.find(message.provider, message.token);
    if (found.ended || (found.payment && completionDue(found.payment))) {
      // The payer is back already (a double-submitted button): decided, so on to the return, which answers it.
      return this.backToGateway(message);
    }
    if (found.page) {
      return found.page;
    }
    if (found.payment.interactionStatus !== 'REDIRECTED_TO_PROVIDER') {
      // INITIATED: the payer was never shown the provider's page, so there is nothing to decide on
      // (and nothing used up: the page says so, not "already used").
      return decisionBeforeJourneyPage();
    }
    const adapter = this.providers.forPayment(found.payment);
    if (!isSimulated(adapter)) {
      // A real provider takes the payer's decision on its own site, never here.
      return paymentNotFoundPage();
    }
    await adapter.decide(found.payment.providerReference, message.decision);
    return this.backToGateway(message);
  }

  private backToGateway(message: PayerDecisionMessage): PayerReply {
    return { kind: 'redirect', location: this.journeys.returnUrl(message.provider, message.token) };
  }
}
