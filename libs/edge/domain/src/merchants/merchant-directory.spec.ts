import { AvsResponseCodeRule, defaultMerchantSettings } from '@gateway/contracts';
import type { MerchantRepository } from '@gateway/edge/data-access';
import type { AppLogger } from '@gateway/platform';
import { merchantEntity } from '../testing/merchant-entity';
import { MerchantDirectory } from './merchant-directory';

describe('MerchantDirectory', () => {
  function directoryOver(rules: AvsResponseCodeRule[]) {
    const merchant = merchantEntity({ settings: { ...defaultMerchantSettings(), transactionFiltering: { avsResponseCodeRules: rules } } });
    const merchants = { findById: async () => merchant } as unknown as MerchantRepository;
    const warn = jest.fn();
    const directory = new MerchantDirectory(merchants, { cacheTtlMs: 0 }, { warn } as unknown as AppLogger);
    return { directory, warn, merchant };
  }

  it('reports, once, a stored profile’s AVS rules that can never apply, and still hands the profile out', async () => {
    const rules = [
      { avsResponseCode: 'no_match', action: 'REJECT' },
      { avsResponseCode: 'ZIP_MATCH', action: 'REVIEW' },
      { avsResponseCode: 'ZIP_MATCH', action: 'REJECT' },
    ] as AvsResponseCodeRule[];
    const { directory, warn, merchant } = directoryOver(rules);
    expect(await directory.find('SHOP1')).toBe(merchant);
    expect(await directory.find('SHOP1')).toBe(merchant);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      { merchantId: 'SHOP1', unusableAvsRules: [rules[0], rules[2]] },
      expect.stringContaining('admin set SHOP1 transactionFiltering.avsResponseCodeRules='),
    );
  });

  it('reports nothing for a profile whose AVS rules all can apply', async () => {
    const { directory, warn } = directoryOver([{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }]);
    await directory.find('SHOP1');
    expect(warn).not.toHaveBeenCalled();
  });
});
