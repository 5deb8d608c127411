import type { InquiryResult } from '@gateway/acquirer';
import { Money } from '@gateway/money';
import { learnedFrom } from './inquire-unknown.use-case';

describe('learnedFrom (what an inquiry\'s answer says was learned)', () => {
  it('an approval: APPROVED, with the reference, the approval code and the acquirer\'s codes', () => {
    const answer: InquiryResult = { gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', acquirerMessage: 'Approved', acquirerTransactionId: 'MCC1234560101', authorizationCode: '123456' };
    expect(learnedFrom(answer, 'TEST_ACQUIRER')).toEqual({
      gatewayCode: 'APPROVED',
      acquirerTransactionId: 'MCC1234560101',
      acquirerId: 'TEST_ACQUIRER',
      authorizationCode: '123456',
      acquirerCode: '00',
      acquirerMessage: 'Approved',
    });
  });

  it('any failure: DECLINED, the acquirer\'s code saying which (25: it never had the transaction), never an approval code', () => {
    expect(learnedFrom({ gatewayCode: 'DECLINED', result: 'FAILURE', acquirerCode: '25', acquirerMessage: 'Unable to locate record' }, 'TEST_ACQUIRER')).toEqual({
      gatewayCode: 'DECLINED',
      acquirerCode: '25',
      acquirerMessage: 'Unable to locate record',
    });
    expect(learnedFrom({ gatewayCode: 'EXPIRED_CARD', result: 'FAILURE', acquirerCode: '54', authorizationCode: '1' } as InquiryResult, 'TEST_ACQUIRER')).toEqual({ gatewayCode: 'DECLINED', acquirerCode: '54' });
  });

  it('a partial approval: PARTIALLY_APPROVED with the approved amount as exact decimal text in its currency, the reference and the approval code', () => {
    const answer: InquiryResult = {
      gatewayCode: 'PARTIALLY_APPROVED',
      result: 'SUCCESS',
      acquirerCode: '10',
      acquirerMessage: 'Partial approval',
      acquirerTransactionId: 'MCC1234560101',
      authorizationCode: '123456',
      approvedAmount: Money.of('0.3', 'BHD'),
    };
    expect(learnedFrom(answer, 'TEST_ACQUIRER')).toEqual({
      gatewayCode: 'PARTIALLY_APPROVED',
      approvedAmount: '0.300',
      approvedCurrency: 'BHD',
      acquirerTransactionId: 'MCC1234560101',
      acquirerId: 'TEST_ACQUIRER',
      authorizationCode: '123456',
      acquirerCode: '10',
      acquirerMessage: 'Partial approval',
    });
  });

  it('nothing from a partial approval that does not say what was approved, nor from an acquirer that cannot tell yet', () => {
    expect(learnedFrom({ gatewayCode: 'PARTIALLY_APPROVED', result: 'SUCCESS' }, 'TEST_ACQUIRER')).toBeNull();
    expect(learnedFrom({ gatewayCode: 'UNKNOWN', result: 'UNKNOWN' }, 'TEST_ACQUIRER')).toBeNull();
  });
});
