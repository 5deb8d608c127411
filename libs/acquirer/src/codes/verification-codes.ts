/** `response.cardSecurityCode.gatewayCode`. */
export const CSC_GATEWAY_CODES = [
  'MATCH',
  'NOT_PRESENT',
  'NOT_PROCESSED',
  'NOT_SUPPORTED',
  'NO_MATCH',
] as const;
export type CscGatewayCode = (typeof CSC_GATEWAY_CODES)[number];

/**
 * `response.cardholderVerification.avs.gatewayCode`: the 12 values the spec lists under the
 * verify request's `order.transactionFiltering.avsResponseCodeRules[n].avsResponseCode`.
 */
export const AVS_GATEWAY_CODES = [
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
export type AvsGatewayCode = (typeof AVS_GATEWAY_CODES)[number];

export function isAvsGatewayCode(value: unknown): value is AvsGatewayCode {
  return typeof value === 'string' && (AVS_GATEWAY_CODES as readonly string[]).includes(value);
}
