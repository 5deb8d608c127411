import { RequestEnvelope } from '../envelope';

/**
 * `browser-payment.refund.v1`: order-transaction owns REFUND, but the money of a browser
 * payment sits with its provider (provider_a, provider_b, provider_c), whose adapters belong
 * to browser-payment. The ledger asks browser-payment to refund at the provider the
 * transaction that funded the order, and records the outcome itself.
 */
export interface ProviderRefundMessage {
  envelope: RequestEnvelope;
  orderId: string;
  /** The refund's own transaction id. */
  transactionId: string;
  /** The browser payment transaction being refunded. */
  targetTransactionId: string;
  /** Decimal string in the order's currency. */
  amount: string;
  currency: string;
}

export interface ProviderRefundReply {
  result: 'SUCCESS' | 'FAILURE' | 'PENDING' | 'UNKNOWN';
  /** A response.gatewayCode value (APPROVED, DECLINED, ...). */
  gatewayCode: string;
  /** The provider's reference for the refund, if it gave one. */
  providerReference?: string;
  /** sourceOfFunds of the refunded payment as responses show it (provider details, masked). */
  sourceOfFunds?: Record<string, unknown>;
}
