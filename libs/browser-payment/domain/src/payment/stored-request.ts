import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import type { InitiateBrowserPaymentRequest, JsonObject } from '@gateway/contracts';

/**
 * What a payment keeps of the merchant's initiate request (later changed by its confirm): the
 * validated body without what is transient (`correlationId`, `session`, `responseControls`) or
 * implied (`apiOperation`). Amounts stay the request's exact decimal strings. Once the journey
 * ends, the payment keeps it without the payer's personal data (PaymentSteps, keptAtEnd): only
 * a payment still PENDING has the customer, shipping, the order's custom fields and notes.
 */
export type StoredRequest = Pick<
  InitiateBrowserPaymentRequest,
  'browserPayment' | 'customer' | 'order' | 'partnerSolutionId' | 'shipping' | 'sourceOfFunds' | 'transaction'
>;

export function storedRequestOf(request: InitiateBrowserPaymentRequest): StoredRequest {
  const { browserPayment, customer, order, partnerSolutionId, shipping, sourceOfFunds, transaction } = request;
  // Through JSON: the request classes' instances become the plain values jsonb stores.
  return JSON.parse(JSON.stringify({ browserPayment, customer, order, partnerSolutionId, shipping, sourceOfFunds, transaction }));
}

export function requestOf(payment: BrowserPaymentRow): StoredRequest {
  return payment.request as unknown as StoredRequest;
}

export function asJson(request: StoredRequest): JsonObject {
  return request as unknown as JsonObject;
}
