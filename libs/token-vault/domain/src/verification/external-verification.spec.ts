import { externalVerificationCode, externalVerificationOutcome } from './external-verification';

describe('externalVerificationCode', () => {
  it.each([
    ['APPROVED', 'MATCH', 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['APPROVED', 'NOT_PRESENT', 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['APPROVED', 'NOT_PROCESSED', 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['APPROVED_PENDING_SETTLEMENT', 'MATCH', 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['PARTIALLY_APPROVED', 'MATCH', 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['APPROVED', 'NO_MATCH', 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'],
    ['INVALID_CSC', 'NO_MATCH', 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'],
    ['EXPIRED_CARD', 'NOT_PROCESSED', 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD'],
    ['DECLINED', 'MATCH', 'EXTERNAL_VERIFICATION_DECLINED'],
    ['INSUFFICIENT_FUNDS', 'MATCH', 'EXTERNAL_VERIFICATION_DECLINED'],
    ['REFERRED', 'MATCH', 'EXTERNAL_VERIFICATION_DECLINED'],
    ['NOT_SUPPORTED', 'NOT_PRESENT', 'EXTERNAL_VERIFICATION_DECLINED'],
    ['TIMED_OUT', 'NOT_PROCESSED', 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ['ACQUIRER_SYSTEM_ERROR', 'NOT_PROCESSED', 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ['UNSPECIFIED_FAILURE', 'NOT_PROCESSED', 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ['UNKNOWN', 'NOT_PROCESSED', 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
  ])('maps %s with security code %s to %s', (gatewayCode, csc, expected) => {
    expect(externalVerificationCode({ gatewayCode, cardSecurityCode: { gatewayCode: csc } })).toBe(expected);
  });

  it('passes only a successful verification', () => {
    expect(externalVerificationOutcome({ gatewayCode: 'APPROVED' })).toEqual({ strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' });
    expect(externalVerificationOutcome({ gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } }).passed).toBe(false);
    expect(externalVerificationOutcome({ gatewayCode: 'DECLINED' }).passed).toBe(false);
  });
});
