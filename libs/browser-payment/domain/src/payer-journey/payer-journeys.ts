import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import type { PayerDecision, PayerPage, PayerRedirect } from '@gateway/contracts';
import { BROWSER_PAYMENT_OPTIONS, BrowserPaymentOptions } from '../browser-payment.options';
import { journeyOverPage, paymentExpiredPage, paymentNotFoundPage } from '../pages/journey-pages';
import { journeyOver } from '../payment/journey';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { isProviderName } from '../providers/provider-adapters';
import { isRedirectToken, redirectTokenHash } from '../redirect-token/redirect-token';

/**
 * `ended`: the payment of a journey that is over (the payer is back), while its token lives or,
 * for a return, after its expiry too (PayerJourneys.find). Its out URL and its decisions are
 * used up (the page), but the payer's browser may come back again (a double-submitted button, a
 * reload after an answer that never arrived): it is sent on to the merchant as the first return was.
 */
export type JourneyLookup =
  | { payment: BrowserPaymentRow; page?: undefined; ended?: undefined }
  | { page: PayerPage; payment?: undefined; ended?: BrowserPaymentRow };

/**
 * The payer's side: a redirect token and the provider in the path lead to one payment, only
 * while its journey is open and the token has not expired. Anything else gets a page and
 * changes nothing: a token that is malformed, unknown, or used under another provider's path
 * looks the same as one that never existed.
 */
@Injectable()
export class PayerJourneys {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    @Inject(BROWSER_PAYMENT_OPTIONS) private readonly options: BrowserPaymentOptions,
  ) {}

  /**
   * `merchantId`: the merchant the edge resolved and locked for; the payment must be its.
   * `returning`: the payer is coming back from the provider (the in URL). That way stays open past
   * the token's expiry while the payment is PENDING: a payer who approved at the provider just
   * before it is back to the same outcome the expiry sweep would record (ask the provider, then
   * execute or wait for the confirm), and sent on to the merchant, instead of being told to start
   * again while the approved payment is then charged by the sweep. Ended journeys send the payer
   * on to the merchant too. Only the provider page and the decisions are closed by the expiry.
   */
  async find(provider: string, token: string, merchantId?: string, { returning = false } = {}): Promise<JourneyLookup> {
    if (!isProviderName(provider) || !isRedirectToken(token)) {
      return { page: paymentNotFoundPage() };
    }
    const payment = await this.store.findByTokenHash(redirectTokenHash(token));
    if (!payment || payment.provider !== provider || (merchantId !== undefined && payment.merchantId !== merchantId)) {
      return { page: paymentNotFoundPage() };
    }
    // The database's clock, the one the expiry sweep judges by on every replica: by this one's
    // own, a few seconds behind, the payer could be shown live a payment the sweep timed out.
    const expired = new Date(payment.tokenExpiresAt).getTime() <= (await this.store.databaseNow()).getTime();
    if (journeyOver(payment)) {
      return expired && !returning ? { page: journeyOverPage() } : { page: journeyOverPage(), ended: payment };
    }
    if (expired && !(returning && payment.result === 'PENDING')) {
      return { page: paymentExpiredPage() };
    }
    return { payment };
  }

  /** `{PUBLIC_BASE_URL}/bpui/<provider>/out/BP-...`: where the merchant sends the payer. */
  redirectUrl(provider: string, token: string): string {
    return `${this.options.publicBaseUrl}/bpui/${provider}/out/${token}`;
  }

  /** `{PUBLIC_BASE_URL}/bpui/<provider>/in/BP-...`: where the provider sends the payer back. */
  returnUrl(provider: string, token: string): string {
    return `${this.options.publicBaseUrl}/bpui/${provider}/in/${token}`;
  }

  /** Where a simulator page's buttons post (same origin as the page). */
  decisionPath(provider: string, token: string, decision: PayerDecision): string {
    return `/bpui/${provider}/out/${token}/${decision}`;
  }

  /**
   * The end of the journey: the merchant's returnUrl, told which order and transaction. The
   * merchant's own query stays as written (re-encoding it would break a signed returnUrl, turn
   * `%20` into `+` or `flag` into `flag=`); only an `orderId` or `transactionId` it named is replaced.
   */
  toMerchant(payment: BrowserPaymentRow): PayerRedirect {
    const location = new URL(payment.returnUrl);
    const kept = location.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '' && !RETURN_PARAMETERS.includes(parameterName(pair)));
    const ids = new URLSearchParams({ orderId: payment.orderId, transactionId: payment.transactionId });
    location.search = [...kept, ids.toString()].join('&');
    return { kind: 'redirect', location: location.toString() };
  }
}

/** What the gateway adds to the merchant's returnUrl. */
const RETURN_PARAMETERS = ['orderId', 'transactionId'];

/** A query pair's name as the merchant's server will read it. */
function parameterName(pair: string): string {
  return new URLSearchParams(pair).keys().next().value ?? '';
}
