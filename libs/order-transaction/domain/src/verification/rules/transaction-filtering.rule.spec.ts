import { AVS_GATEWAY_CODES } from '@gateway/acquirer';
import { GatewayError } from '@gateway/contracts';
import { applyAvsFiltering, checkAvsResponseCodeRules } from './transaction-filtering.rule';

describe('transaction filtering on the AVS response code', () => {
  it('turns an approved transaction into DECLINED_AVS with result FAILURE on a REJECT rule', () => {
    const outcome = applyAvsFiltering({
      gatewayCode: 'APPROVED',
      avsCode: 'NO_MATCH',
      requestRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }],
      merchantRules: [],
    });
    expect(outcome).toEqual({
      gatewayCode: 'DECLINED_AVS',
      result: 'FAILURE',
      filtering: { avsResponseCode: 'NO_MATCH', action: 'REJECT', source: 'REQUEST' },
    });
  });

  it.each(AVS_GATEWAY_CODES.map((code) => [code]))('can reject on %s', (avsCode) => {
    const outcome = applyAvsFiltering({
      gatewayCode: 'APPROVED',
      avsCode,
      merchantRules: [{ avsResponseCode: avsCode, action: 'REJECT' }],
    });
    expect(outcome.gatewayCode).toBe('DECLINED_AVS');
  });

  it('records REVIEW and leaves the approval as it is', () => {
    const outcome = applyAvsFiltering({
      gatewayCode: 'APPROVED',
      avsCode: 'ZIP_MATCH',
      requestRules: [{ avsResponseCode: 'ZIP_MATCH', action: 'REVIEW' }],
      merchantRules: [],
    });
    expect(outcome).toEqual({
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      filtering: { avsResponseCode: 'ZIP_MATCH', action: 'REVIEW', source: 'REQUEST' },
    });
  });

  it('passes on NO_ACTION', () => {
    const outcome = applyAvsFiltering({
      gatewayCode: 'APPROVED',
      avsCode: 'NO_MATCH',
      requestRules: [{ avsResponseCode: 'NO_MATCH', action: 'NO_ACTION' }],
      merchantRules: [],
    });
    expect(outcome).toMatchObject({
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      filtering: { action: 'NO_ACTION' },
    });
  });

  it("lets the request's rule override the merchant profile's rule for the same code", () => {
    const merchantRules = [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' as const }];
    expect(
      applyAvsFiltering({
        gatewayCode: 'APPROVED',
        avsCode: 'NO_MATCH',
        merchantRules,
        requestRules: [{ avsResponseCode: 'NO_MATCH', action: 'NO_ACTION' }],
      }),
    ).toMatchObject({ gatewayCode: 'APPROVED', filtering: { action: 'NO_ACTION', source: 'REQUEST' } });
    expect(
      applyAvsFiltering({
        gatewayCode: 'APPROVED',
        avsCode: 'ZIP_MATCH',
        merchantRules: [{ avsResponseCode: 'ZIP_MATCH', action: 'NO_ACTION' }],
        requestRules: [{ avsResponseCode: 'ZIP_MATCH', action: 'REJECT' }],
      }),
    ).toMatchObject({ gatewayCode: 'DECLINED_AVS', filtering: { action: 'REJECT', source: 'REQUEST' } });
  });

  it("applies the merchant profile's rules for codes the request does not name", () => {
    const outcome = applyAvsFiltering({
      gatewayCode: 'APPROVED',
      avsCode: 'NO_MATCH',
      merchantRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }],
      requestRules: [{ avsResponseCode: 'ZIP_MATCH', action: 'NO_ACTION' }],
    });
    expect(outcome).toMatchObject({
      gatewayCode: 'DECLINED_AVS',
      result: 'FAILURE',
      filtering: { source: 'MERCHANT' },
    });
  });

  it('does nothing when no rule names the returned code', () => {
    const outcome = applyAvsFiltering({
      gatewayCode: 'APPROVED',
      avsCode: 'ADDRESS_ZIP_MATCH',
      merchantRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }],
    });
    expect(outcome).toEqual({ gatewayCode: 'APPROVED', result: 'SUCCESS' });
  });

  it('keeps the code of an outcome that is already a failure or unknown', () => {
    const merchantRules = [{ avsResponseCode: 'SERVICE_NOT_AVAILABLE_RETRY', action: 'REJECT' as const }];
    expect(
      applyAvsFiltering({ gatewayCode: 'DECLINED', avsCode: 'SERVICE_NOT_AVAILABLE_RETRY', merchantRules }),
    ).toMatchObject({
      gatewayCode: 'DECLINED',
      result: 'FAILURE',
    });
    expect(
      applyAvsFiltering({ gatewayCode: 'TIMED_OUT', avsCode: 'SERVICE_NOT_AVAILABLE_RETRY', merchantRules }),
    ).toMatchObject({
      gatewayCode: 'TIMED_OUT',
      result: 'FAILURE',
    });
    expect(
      applyAvsFiltering({ gatewayCode: 'UNKNOWN', avsCode: 'SERVICE_NOT_AVAILABLE_RETRY', merchantRules }),
    ).toMatchObject({
      gatewayCode: 'UNKNOWN',
      result: 'UNKNOWN',
    });
  });

  it('rejects a request naming the same AVS code in two rules, on the second', () => {
    let thrown: GatewayError | undefined;
    try {
      checkAvsResponseCodeRules([
        { avsResponseCode: 'NO_MATCH', action: 'REJECT' },
        { avsResponseCode: 'ZIP_MATCH', action: 'REVIEW' },
        { avsResponseCode: 'NO_MATCH', action: 'NO_ACTION' },
      ]);
    } catch (err) {
      thrown = err as GatewayError;
    }
    expect(thrown?.toResponseBody()).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: "Value 'NO_MATCH' is invalid. Only one rule may be given for each AVS response code.",
        field: 'order.transactionFiltering.avsResponseCodeRules[2].avsResponseCode',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
    expect(() => checkAvsResponseCodeRules(undefined)).not.toThrow();
    expect(() =>
      checkAvsResponseCodeRules([{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }]),
    ).not.toThrow();
  });
});
