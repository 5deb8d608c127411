import type { ProviderRefundReply } from '@gateway/contracts';
import { OUTCOME_UNKNOWN } from '../card-operation/operation-outcome';
import { outcomeOfProvider } from './refund-outcome';

describe("browser-payment's answer to a refund", () => {
  it('is taken as it says when it names a result and a gateway code, the provider reference kept to 100 characters', () => {
    const reply: ProviderRefundReply = { result: 'FAILURE', gatewayCode: 'DECLINED', providerReference: `PR-${'7'.repeat(117)}` };
    expect(outcomeOfProvider(reply)).toEqual({ result: 'FAILURE', gatewayCode: 'DECLINED', receipt: `PR-${'7'.repeat(97)}` });
  });

  it('is UNKNOWN, never a guess, when it does not say what happened', () => {
    const unclear = [
      undefined,
      { result: 'MAYBE', gatewayCode: 'APPROVED' },
      { result: 'SUCCESS' },
      { result: 'SUCCESS', gatewayCode: 'approved, probably' },
      { result: 'SUCCESS', gatewayCode: 'A'.repeat(41) },
    ];
    for (const reply of unclear) {
      expect(outcomeOfProvider(reply as ProviderRefundReply | undefined)).toEqual(OUTCOME_UNKNOWN);
    }
  });
});
