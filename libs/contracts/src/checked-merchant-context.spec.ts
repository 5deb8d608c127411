import * as classValidator from 'class-validator';
import { validateSync } from 'class-validator';
import { RequestEnvelope } from './envelope';
import { defaultMerchantSettings, MerchantContext, MerchantSettings } from './merchant-context';
import { toMessage } from './verbatim';

/** An envelope as a message carries it (plain JSON), checked as services check it. */
function check(merchant: unknown) {
  const envelope = toMessage(RequestEnvelope, {
    merchant: merchant === undefined ? undefined : JSON.parse(JSON.stringify(merchant)),
    apiVersion: 100,
    requestId: 'r-1',
    authMethod: 'PASSWORD',
  });
  return { envelope, errors: validateSync(envelope, { forbidUnknownValues: false }) };
}

let sequence = 0;
/** A merchant no other test has checked: the kept contexts are shared by the whole process. */
function merchant(settings: Partial<MerchantSettings> = {}) {
  sequence += 1;
  return { id: `CHECKED${sequence}`, mode: 'TEST', settings: { ...defaultMerchantSettings(), ...settings } };
}

/** How many MerchantContext instances class-validator checked in full during `work`. */
function fullChecksOf(work: () => void): number {
  const spy = jest.spyOn(classValidator, 'validateSync');
  try {
    work();
    return spy.mock.calls.filter(([target]) => (target as unknown) instanceof MerchantContext).length;
  } finally {
    spy.mockRestore();
  }
}

describe('the merchant context of a request envelope', () => {
  it('is checked in full once per distinct content, then shared by the envelopes that carry the same', () => {
    const plain = merchant();
    let first: unknown;
    let second: unknown;
    expect(fullChecksOf(() => (first = check(plain).envelope.merchant))).toBe(1);
    expect(fullChecksOf(() => (second = check(plain).envelope.merchant))).toBe(0);
    expect(second).toBe(first);
    expect(first).toBeInstanceOf(MerchantContext);
    expect(check(plain).errors).toEqual([]);
    expect(first).toEqual(plain);
  });

  it('is checked in full again when a setting changes, and refused when the change is invalid', () => {
    const plain = merchant();
    check(plain);
    const invalid = { ...plain, settings: { ...plain.settings, tokenRepository: { ...plain.settings.tokenRepository, id: 'Test1' } } };
    let errors: classValidator.ValidationError[] = [];
    expect(fullChecksOf(() => ({ errors } = check(invalid)))).toBe(1);
    expect(errors.map((e) => [e.property, Object.keys(e.constraints ?? {})])).toEqual([['merchant', ['isCheckedMerchantContext']]]);
    // Refused contents are never kept: checked in full, and refused, every time.
    expect(fullChecksOf(() => ({ errors } = check(invalid)))).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it('refuses what is no merchant context at all', () => {
    for (const value of [undefined, null, 'BENCH1', 42, [merchant()], { id: 'X', mode: 'TEST' }]) {
      expect([value, check(value).errors.map((e) => e.property)]).toEqual([value, ['merchant']]);
    }
  });

  it('carries a stored profile’s AVS rules that could never apply without them, instead of refusing the merchant', () => {
    // Profiles stored before the codes were checked: a code the acquirer never returns, and a
    // second rule for a code (the first always won). Refusing them would refuse every request.
    const rules = [
      { avsResponseCode: 'no_match', action: 'REJECT' },
      { avsResponseCode: 'NO_MATCH', action: 'REVIEW' },
      { avsResponseCode: 'NO_MATCH', action: 'REJECT' },
    ];
    const { envelope, errors } = check(merchant({ transactionFiltering: { avsResponseCodeRules: rules as never } }));
    expect(errors).toEqual([]);
    expect(envelope.merchant.settings.transactionFiltering.avsResponseCodeRules).toEqual([{ avsResponseCode: 'NO_MATCH', action: 'REVIEW' }]);
  });

  it('is refused when an AVS rule is malformed otherwise (an unknown action)', () => {
    const rules = [{ avsResponseCode: 'NO_MATCH', action: 'DENY' }];
    expect(check(merchant({ transactionFiltering: { avsResponseCodeRules: rules as never } })).errors).toHaveLength(1);
  });

  it('is frozen, nested settings included, so no request can change what the next one sees', () => {
    const shared = check(merchant()).envelope.merchant;
    expect(Object.isFrozen(shared)).toBe(true);
    expect(Object.isFrozen(shared.settings.privileges)).toBe(true);
    expect(Object.isFrozen(shared.settings.clientCertificates?.fingerprints)).toBe(true);
    expect(() => {
      (shared.settings.privileges as { unmask: boolean }).unmask = true;
    }).toThrow(TypeError);
  });
});
