import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { RequestEnvelope } from '../envelope';

/**
 * The payer's side of a browser payment. The payer's browser carries no merchant credentials:
 * what authorises each request is the payment's redirect token, `BP-` and 32 hex digits (128
 * random bits) in the path, unguessable, good for one journey and until it expires. The edge
 * serves the pages and forwards every request to browser-payment, which owns the tokens and
 * answers with the page (HTML) or redirect to send:
 *
 *   GET  /bpui/<provider>/out/BP-...            payer.redirect: the payment leaves for the
 *                                               provider (REDIRECTED_TO_PROVIDER); the
 *                                               provider's page, or a redirect to it
 *   POST /bpui/<provider>/out/BP-.../<decision> payer.decide: the payer approves or cancels on
 *                                               a built-in simulator's page (provider side:
 *                                               no gateway state changes); redirect to .../in
 *   GET  /bpui/<provider>/in/BP-...             payer.return: back from the provider
 *                                               (RETURNED_TO_MERCHANT, and COMPLETED for
 *                                               CONFIRM_AT_PROVIDER); redirect to the
 *                                               merchant's returnUrl with the order and
 *                                               transaction ids
 *
 * Steps that change the payment are recorded in the order ledger, so the edge takes the
 * order's lock first (ARCHITECTURE 4.9): it asks `payer.resolve` which merchant and order the
 * token belongs to, locks (merchant, order), then sends the step with the lock's fencing
 * token and the merchant's profile in the envelope (authMethod PAYER).
 */

export const BROWSER_PAYMENT_PROVIDERS = ['provider_a', 'provider_b', 'provider_c'] as const;
export type BrowserPaymentProvider = (typeof BROWSER_PAYMENT_PROVIDERS)[number];

export const PAYER_DECISIONS = ['approve', 'cancel'] as const;
export type PayerDecision = (typeof PAYER_DECISIONS)[number];

/** `BP-` and 32 lower-case hex digits. */
export const REDIRECT_TOKEN = /^BP-[0-9a-f]{32}$/;

/** `browser-payment.payer.resolve.v1` (no lock, no change). */
export class PayerTokenMessage {
  /** The edge's id for the payer's HTTP request, for the logs. */
  @IsString()
  @Matches(/^[A-Za-z0-9-]{1,64}$/)
  requestId: string;

  /** As the path gave it: the edge does not know which providers exist. */
  @IsString()
  @Matches(/^[a-z0-9_]{1,20}$/)
  provider: string;

  /** As the path gave it; browser-payment answers a malformed token like an unknown one. */
  @IsString()
  @Matches(/^[\x21-\x7e]{1,80}$/)
  token: string;

  /**
   * The payer is coming back from the provider (the in URL): that way stays open past the
   * token's expiry while the payment is still PENDING (PayerJourneys.find).
   */
  @IsOptional()
  @IsBoolean()
  returning?: boolean;
}

/** `browser-payment.payer.decide.v1`: the payer's choice on a simulator's page. */
export class PayerDecisionMessage extends PayerTokenMessage {
  @IsIn(PAYER_DECISIONS)
  decision: PayerDecision;
}

/** `browser-payment.payer.redirect.v1` and `browser-payment.payer.return.v1`, under the order lock. */
export class PayerStepMessage {
  /** The payment's merchant (as resolved), authMethod PAYER, the order lock's fencing token. */
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Matches(/^[a-z0-9_]{1,20}$/)
  provider: string;

  @IsString()
  @Matches(REDIRECT_TOKEN)
  token: string;
}

/** An HTML page for the payer's browser. Every merchant-supplied value in it is escaped. */
export interface PayerPage {
  kind: 'page';
  status: number;
  html: string;
  /** The page's Content-Security-Policy (its inline style's hash). */
  contentSecurityPolicy: string;
}

/** Send the browser on (303 See Other). */
export interface PayerRedirect {
  kind: 'redirect';
  location: string;
}

export type PayerReply = PayerPage | PayerRedirect;

/** `payer.resolve` when the token names a live journey: the order the edge must lock. */
export interface PayerJourneyOrder {
  kind: 'order';
  merchantId: string;
  orderId: string;
}

export type PayerResolveReply = PayerJourneyOrder | PayerPage;
