import { RequestEnvelope } from '../envelope';
import type { ProviderRefundReply } from './provider-refund.messages';

/**
 * `browser-payment.capture.v1` and `browser-payment.void.v1`: a browser payment initiated with
 * AUTHORIZE leaves the amount authorised at its provider (spec, browser payment rule 4: a later
 * CAPTURE is required to move funds). order-transaction owns CAPTURE and VOID and their limits;
 * the provider's adapter belongs to browser-payment. The ledger reserves the capture or void,
 * asks browser-payment to make it at the provider, and records the outcome itself, as it does
 * for a provider refund (provider-refund.messages.ts).
 */
export interface ProviderCaptureMessage {
  envelope: RequestEnvelope;
  orderId: string;
  /** The capture's own transaction id: its idempotency key at the provider. */
  transactionId: string;
  /** The browser payment transaction (an AUTHORIZATION) being captured. */
  targetTransactionId: string;
  /** Decimal string in the order's currency. */
  amount: string;
  currency: string;
}

/** A void of the whole authorisation: no amount. */
export interface ProviderVoidMessage {
  envelope: RequestEnvelope;
  orderId: string;
  /** The void's own transaction id. */
  transactionId: string;
  /** The browser payment transaction (an AUTHORIZATION) being voided. */
  targetTransactionId: string;
}

/** Answered as a refund is: the outcome, the provider's reference, the payment's sourceOfFunds. */
export type ProviderCaptureReply = ProviderRefundReply;
