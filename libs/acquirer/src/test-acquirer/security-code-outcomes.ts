import type { SecurityCode } from '../card/security-code';
import type { CardSecurityCodeResult } from '../acquirer-results';

/**
 * The test acquirer's security code answers (ARCHITECTURE section 5): 100 / 1000 MATCH,
 * 101 / 1010 NOT_PROCESSED, 102 / 1020 NO_MATCH. `acquirerCode` is the scheme's CVC2 result
 * letter (M, P, N).
 */
export const TEST_SECURITY_CODE_MATRIX: ReadonlyMap<string, CardSecurityCodeResult> = new Map([
  ['100', { gatewayCode: 'MATCH', acquirerCode: 'M' }],
  ['101', { gatewayCode: 'NOT_PROCESSED', acquirerCode: 'P' }],
  ['102', { gatewayCode: 'NO_MATCH', acquirerCode: 'N' }],
  ['1000', { gatewayCode: 'MATCH', acquirerCode: 'M' }],
  ['1010', { gatewayCode: 'NOT_PROCESSED', acquirerCode: 'P' }],
  ['1020', { gatewayCode: 'NO_MATCH', acquirerCode: 'N' }],
]);

const NOT_PRESENT: CardSecurityCodeResult = { gatewayCode: 'NOT_PRESENT' };
const MATCH: CardSecurityCodeResult = { gatewayCode: 'MATCH', acquirerCode: 'M' };
const NOT_PROCESSED: CardSecurityCodeResult = { gatewayCode: 'NOT_PROCESSED', acquirerCode: 'P' };

/**
 * No code: NOT_PRESENT. A magic code: its entry. Any other code: MATCH (the test issuer
 * knows every card's code, as any other future expiry is approved). When the issuer never
 * answered (timeouts, system errors), a given code was not processed.
 */
export function securityCodeOutcome(
  code: SecurityCode | undefined,
  issuerAnswered: boolean,
): CardSecurityCodeResult {
  if (!code) {
    return NOT_PRESENT;
  }
  if (!issuerAnswered) {
    return NOT_PROCESSED;
  }
  return TEST_SECURITY_CODE_MATRIX.get(code.reveal()) ?? MATCH;
}
