import type { StoredSession } from '@gateway/edge/data-access';

/** The payment session of the domain's security-code tests. */
export const SESSION_WITH_CODE = 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA';

/**
 * A payment session of `merchantId` whose card is sealed with the security code the payer gave in
 * it (version aaaaaaaaaa): what the security code tests of order and token operations start from.
 */
export function sessionWithCode(merchantId: string, masked: { number: string }): StoredSession {
  return {
    id: SESSION_WITH_CODE,
    merchantId,
    version: 'aaaaaaaaaa',
    updateStatus: 'SUCCESS',
    fields: {},
    card: { sealed: 'sealed-with-code', masked, securityCodePresent: true, securityCodeGivenIn: 'aaaaaaaaaa' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}
