import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AVS_RESPONSE_CODES } from './avs-response-codes';
import { AvsResponseCodeRule, defaultMerchantSettings, MerchantSettings, TokenRepositorySettings, usableAvsRules } from './merchant-context';

describe('TokenRepositorySettings', () => {
  const errorsFor = (id: string) =>
    validateSync(plainToInstance(TokenRepositorySettings, { ...defaultMerchantSettings().tokenRepository, id }));

  it('accepts a live repository id of 1 to 12 printable characters', () => {
    expect(errorsFor('1000000001')).toEqual([]);
    expect(errorsFor('ShopRepo-12')).toEqual([]);
  });

  it('refuses an id starting with Test: test repositories are the live id prefixed with Test', () => {
    expect(errorsFor('Test1000')).not.toEqual([]);
    expect(errorsFor('1234567890123')).not.toEqual([]);
  });
});

describe('the merchant profile’s AVS rules', () => {
  const errorsFor = (rules: unknown[]) =>
    validateSync(plainToInstance(MerchantSettings, { ...defaultMerchantSettings(), transactionFiltering: { avsResponseCodeRules: rules } }));
  const messages = (rules: unknown[]) =>
    JSON.stringify(errorsFor(rules).map((e) => e.children?.map((c) => [c.constraints, c.children?.map((r) => r.children?.map((f) => f.constraints))])));

  it('accepts each of the spec’s 12 AVS gateway codes, once each', () => {
    expect(errorsFor(AVS_RESPONSE_CODES.map((avsResponseCode) => ({ avsResponseCode, action: 'REJECT' })))).toEqual([]);
  });

  it('refuses a code the acquirer never returns (a rule that could never fire)', () => {
    for (const avsResponseCode of ['no_match', 'NO MATCH', 'NOMATCH', '']) {
      expect(messages([{ avsResponseCode, action: 'REJECT' }])).toContain('avsResponseCode must be one of the following values');
    }
  });

  it('refuses two rules for one code: which action wins would be ambiguous, as in a request', () => {
    expect(messages([{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }, { avsResponseCode: 'NO_MATCH', action: 'NO_ACTION' }])).toContain(
      'only one rule may be given for each AVS response code',
    );
  });
});

describe('usableAvsRules (profiles stored before the codes were checked)', () => {
  it('drops rules that could never fire and later rules for a code already named, which never applied', () => {
    const rules = [
      { avsResponseCode: 'no_match', action: 'REJECT' },
      { avsResponseCode: 'NO_MATCH', action: 'REVIEW' },
      { avsResponseCode: 'ZIP_MATCH', action: 'REJECT' },
      { avsResponseCode: 'NO_MATCH', action: 'REJECT' },
    ] as AvsResponseCodeRule[];
    expect(usableAvsRules(rules)).toEqual({
      usable: [rules[1], rules[2]],
      unusable: [rules[0], rules[3]],
    });
  });

  it('gives back the same rules when all are usable', () => {
    const rules: AvsResponseCodeRule[] = [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }];
    expect(usableAvsRules(rules)).toEqual({ usable: rules, unusable: [] });
  });
});
