import type { AcquirerAddress } from '../acquirer-requests';
import type { AvsResult } from '../acquirer-results';
import type { AvsGatewayCode } from '../codes/verification-codes';

/**
 * The test acquirer's AVS table (docs/test-acquirer.md). Every one of the spec's 12 AVS
 * codes has a row, reachable either by naming it in the billing street (any case, spaces or
 * punctuation in place of underscores: `Name Zip Match`, `NAME_ZIP_MATCH`) or by its test
 * postcode. `acquirerCode` is the AVS result letter schemes use for that outcome.
 */
export interface AvsTableRow {
  readonly gatewayCode: AvsGatewayCode;
  readonly postcode: string;
  readonly acquirerCode?: string;
}

export const TEST_AVS_TABLE: readonly AvsTableRow[] = [
  { gatewayCode: 'ADDRESS_MATCH', postcode: '00001', acquirerCode: 'A' },
  { gatewayCode: 'ADDRESS_ZIP_MATCH', postcode: '00002', acquirerCode: 'Y' },
  { gatewayCode: 'NAME_ADDRESS_MATCH', postcode: '00003', acquirerCode: 'O' },
  { gatewayCode: 'NAME_MATCH', postcode: '00004', acquirerCode: 'K' },
  { gatewayCode: 'NAME_ZIP_MATCH', postcode: '00005', acquirerCode: 'L' },
  { gatewayCode: 'NOT_AVAILABLE', postcode: '00006', acquirerCode: 'U' },
  { gatewayCode: 'NOT_REQUESTED', postcode: '00007' },
  { gatewayCode: 'NOT_VERIFIED', postcode: '00008', acquirerCode: 'G' },
  { gatewayCode: 'NO_MATCH', postcode: '00009', acquirerCode: 'N' },
  { gatewayCode: 'SERVICE_NOT_AVAILABLE_RETRY', postcode: '00010', acquirerCode: 'R' },
  { gatewayCode: 'SERVICE_NOT_SUPPORTED', postcode: '00011', acquirerCode: 'S' },
  { gatewayCode: 'ZIP_MATCH', postcode: '00012', acquirerCode: 'Z' },
];

const BY_STREET = new Map(TEST_AVS_TABLE.map((row) => [normalise(row.gatewayCode), row]));
const BY_POSTCODE = new Map(TEST_AVS_TABLE.map((row) => [row.postcode, row]));
const RESULTS = new Map<AvsGatewayCode, AvsResult>(
  TEST_AVS_TABLE.map((row) => [
    row.gatewayCode,
    row.acquirerCode
      ? { gatewayCode: row.gatewayCode, acquirerCode: row.acquirerCode }
      : { gatewayCode: row.gatewayCode },
  ]),
);
const byCode = (code: AvsGatewayCode): AvsResult => RESULTS.get(code)!;

/**
 * 1. No billing street and no postcode: NOT_REQUESTED (nothing to verify).
 * 2. The issuer never answered (timeouts, system errors): SERVICE_NOT_AVAILABLE_RETRY.
 * 3. A street naming an AVS code: that code. Else a test postcode: its code.
 * 4. Otherwise the test issuer matches what it was given: street and postcode
 *    ADDRESS_ZIP_MATCH, street only ADDRESS_MATCH, postcode only ZIP_MATCH.
 */
export function avsOutcome(address: AcquirerAddress | undefined, issuerAnswered: boolean): AvsResult {
  const street = address?.street?.trim() ? address.street : undefined;
  const postcode = address?.postcodeZip?.trim() ? address.postcodeZip : undefined;
  if (!street && !postcode) {
    return byCode('NOT_REQUESTED');
  }
  if (!issuerAnswered) {
    return byCode('SERVICE_NOT_AVAILABLE_RETRY');
  }
  const row =
    (street && BY_STREET.get(normalise(street))) ||
    (postcode && BY_POSTCODE.get(postcode.replace(/[\s-]/g, '')));
  if (row) {
    return byCode(row.gatewayCode);
  }
  if (street && postcode) {
    return byCode('ADDRESS_ZIP_MATCH');
  }
  return byCode(street ? 'ADDRESS_MATCH' : 'ZIP_MATCH');
}

function normalise(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '');
}
