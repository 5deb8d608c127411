import type { TransactionResult } from '@gateway/contracts';

/**
 * The spec's `response.gatewayCode` values an acquirer connector can answer with. The
 * gateway's own codes (LOCK_FAILURE, DECLINED_AVS from transaction filtering, SUBMITTED of
 * browser payments) are added by the services that decide them.
 */
export const ACQUIRER_GATEWAY_CODES = [
  'ACQUIRER_SYSTEM_ERROR',
  'APPROVED',
  'APPROVED_PENDING_SETTLEMENT',
  'DECLINED',
  'EXPIRED_CARD',
  'INSUFFICIENT_FUNDS',
  'INVALID_CSC',
  'NOT_SUPPORTED',
  'PARTIALLY_APPROVED',
  'REFERRED',
  'TIMED_OUT',
  'UNKNOWN',
  'UNSPECIFIED_FAILURE',
] as const;
export type AcquirerGatewayCode = (typeof ACQUIRER_GATEWAY_CODES)[number];

/** The codes of an approval (`result` SUCCESS): an approval code comes with them. */
export const SUCCESSFUL_GATEWAY_CODES: ReadonlySet<string> = new Set([
  'APPROVED',
  'APPROVED_PENDING_SETTLEMENT',
  'PARTIALLY_APPROVED',
]);
const PENDING: ReadonlySet<string> = new Set(['PENDING', 'SUBMITTED']);

/**
 * The spec's `result` for a gateway code. TIMED_OUT is a decline (the spec: "treat as
 * declined; the gateway tries to reverse"), so FAILURE; UNKNOWN means the acquirer got the
 * request and its outcome is not known yet, so the result is UNKNOWN too and may be updated
 * when the outcome is learned.
 */
export function resultOfGatewayCode(gatewayCode: string): TransactionResult {
  if (SUCCESSFUL_GATEWAY_CODES.has(gatewayCode)) {
    return 'SUCCESS';
  }
  if (gatewayCode === 'UNKNOWN') {
    return 'UNKNOWN';
  }
  if (PENDING.has(gatewayCode)) {
    return 'PENDING';
  }
  return 'FAILURE';
}
