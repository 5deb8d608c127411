/**
 * The spec's 12 AVS gateway codes: the values of `response.cardholderVerification.avs.gatewayCode`
 * and of the verify request's `order.transactionFiltering.avsResponseCodeRules[n].avsResponseCode`.
 * The one list: the request's and the merchant profile's rules, and the acquirers' results
 * (`AVS_GATEWAY_CODES` in libs/acquirer), name these.
 */
export const AVS_RESPONSE_CODES = [
  'ADDRESS_MATCH',
  'ADDRESS_ZIP_MATCH',
  'NAME_ADDRESS_MATCH',
  'NAME_MATCH',
  'NAME_ZIP_MATCH',
  'NOT_AVAILABLE',
  'NOT_REQUESTED',
  'NOT_VERIFIED',
  'NO_MATCH',
  'SERVICE_NOT_AVAILABLE_RETRY',
  'SERVICE_NOT_SUPPORTED',
  'ZIP_MATCH',
] as const;
export type AvsResponseCode = (typeof AVS_RESPONSE_CODES)[number];
