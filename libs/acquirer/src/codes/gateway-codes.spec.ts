import { resultOfGatewayCode } from './gateway-codes';

describe('resultOfGatewayCode', () => {
  it.each([
    ['APPROVED', 'SUCCESS'],
    ['APPROVED_PENDING_SETTLEMENT', 'SUCCESS'],
    ['PARTIALLY_APPROVED', 'SUCCESS'],
    ['TIMED_OUT', 'FAILURE'],
    ['DECLINED', 'FAILURE'],
    ['EXPIRED_CARD', 'FAILURE'],
    ['ACQUIRER_SYSTEM_ERROR', 'FAILURE'],
    ['UNSPECIFIED_FAILURE', 'FAILURE'],
    ['DECLINED_AVS', 'FAILURE'],
    ['UNKNOWN', 'UNKNOWN'],
    ['SUBMITTED', 'PENDING'],
    ['PENDING', 'PENDING'],
  ])('maps %s to %s', (gatewayCode, result) => {
    expect(resultOfGatewayCode(gatewayCode)).toBe(result);
  });
});
