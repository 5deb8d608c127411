import { AVS_RESPONSE_CODES } from '@gateway/contracts';

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
 * verify request's `order.transactionFiltering.avsResponseCodeRules[n].avsResponseCode`, the
 * same list the request's and the merchant profile's rules are checked against.
 */
export const AVS_GATEWAY_CODES = AVS_RESPONSE_CODES;
export type AvsGatewayCode = (typeof AVS_GATEWAY_CODES)[number];

export function isAvsGatewayCode(value: unknown): value is AvsGatewayCode {
  return typeof value === 'string' && (AVS_GATEWAY_CODES as readonly string[]).includes(value);
}
