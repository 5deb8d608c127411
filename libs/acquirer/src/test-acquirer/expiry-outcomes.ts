import { CardExpiry, formatCardExpiry, hasExpired } from '../card/card-expiry';
import type { AcquirerGatewayCode } from '../codes/gateway-codes';

/**
 * How the test acquirer answers, by card expiry: the magic expiries merchants know from the
 * real gateway's test environment (ARCHITECTURE section 5, docs/test-acquirer.md).
 */
export interface ExpiryOutcome {
  readonly gatewayCode: AcquirerGatewayCode;
  /** ISO 8583 response code; absent when no answer came back. */
  readonly acquirerCode?: string;
  readonly acquirerMessage?: string;
  /**
   * The issuer answered, so it also checked the security code and address. When the request
   * never reached a decision (timeouts, system errors, unknown outcomes) nothing was checked.
   */
  readonly issuerAnswered: boolean;
}

const APPROVED: ExpiryOutcome = {
  gatewayCode: 'APPROVED',
  acquirerCode: '00',
  acquirerMessage: 'Approved',
  issuerAnswered: true,
};
const EXPIRED_CARD: ExpiryOutcome = {
  gatewayCode: 'EXPIRED_CARD',
  acquirerCode: '54',
  acquirerMessage: 'Expired card',
  issuerAnswered: true,
};

/** Keyed by `MM/YY`. */
export const TEST_EXPIRY_MATRIX: ReadonlyMap<string, ExpiryOutcome> = new Map([
  ['01/39', APPROVED],
  [
    '05/39',
    { gatewayCode: 'DECLINED', acquirerCode: '05', acquirerMessage: 'Do not honour', issuerAnswered: true },
  ],
  ['04/27', EXPIRED_CARD],
  [
    '08/28',
    {
      gatewayCode: 'TIMED_OUT',
      acquirerCode: '68',
      acquirerMessage: 'Response received too late',
      issuerAnswered: false,
    },
  ],
  [
    '01/37',
    {
      gatewayCode: 'ACQUIRER_SYSTEM_ERROR',
      acquirerCode: '96',
      acquirerMessage: 'System malfunction',
      issuerAnswered: false,
    },
  ],
  [
    '02/37',
    {
      gatewayCode: 'UNSPECIFIED_FAILURE',
      acquirerCode: '06',
      acquirerMessage: 'Error',
      issuerAnswered: false,
    },
  ],
  ['05/37', { gatewayCode: 'UNKNOWN', issuerAnswered: false }],
]);

/**
 * The magic expiries win, even once their date has passed (04/27 stays EXPIRED_CARD and
 * 08/28 stays TIMED_OUT for ever, so test suites keep working). Any other expiry in the past
 * is EXPIRED_CARD, as a real issuer would answer; any other future expiry is APPROVED.
 */
export function expiryOutcome(expiry: CardExpiry, now: Date): ExpiryOutcome {
  const magic = TEST_EXPIRY_MATRIX.get(formatCardExpiry(expiry));
  if (magic) {
    return magic;
  }
  return hasExpired(expiry, now) ? EXPIRED_CARD : APPROVED;
}
