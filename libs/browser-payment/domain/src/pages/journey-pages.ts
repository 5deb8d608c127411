import type { PayerPage } from '@gateway/contracts';
import { html } from './escape-html';
import { payerPage } from './payer-page';

/**
 * What a payer sees when a link leads nowhere. The pages say nothing about why a token is
 * unknown (tampered, another provider's path, never issued): a guesser learns nothing.
 */
export function paymentNotFoundPage(): PayerPage {
  return payerPage(404, {
    title: 'Payment not found',
    body: html`<p class="notice">This payment link is not valid. Please go back to the shop and start the payment again.</p>`,
  });
}

export function paymentExpiredPage(): PayerPage {
  return payerPage(410, {
    title: 'Payment link expired',
    body: html`<p class="notice">This payment link has expired. Please go back to the shop and start the payment again.</p>`,
  });
}

export function journeyOverPage(): PayerPage {
  return payerPage(410, {
    title: 'Payment link already used',
    body: html`<p class="notice">This payment link has already been used. You can close this window.</p>`,
  });
}

/**
 * A decision posted before the out URL: the payer was never shown the provider's page from this
 * link, so nothing was used up and "already used" would be untrue. 410 as before: the decision
 * can never be taken through this request.
 */
export function decisionBeforeJourneyPage(): PayerPage {
  return payerPage(410, {
    title: 'Payment not started',
    body: html`<p class="notice">This payment was not started from this link. Nothing was paid. Please go back to the shop and start the payment from there.</p>`,
  });
}

/** The in URL before the out URL: the payer never reached the provider, so nothing is recorded. */
export function journeyNotStartedPage(): PayerPage {
  return payerPage(409, {
    title: 'Payment not started',
    body: html`<p class="notice">This payment has not been started at the provider. Please go back to the shop and use its payment link.</p>`,
  });
}
