import { setTimeout as sleep } from 'node:timers/promises';
import { AvsResponseCodeRule, defaultMerchantSettings } from '@gateway/contracts';
import type { MerchantEntity, MerchantRepository } from '@gateway/edge/data-access';
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

  describe('a change the database notified (forget, forgetAll)', () => {
    function directoryOverChangingDatabase() {
      const stored = new Map<string, MerchantEntity>([
        ['SHOP1', merchantEntity({ id: 'SHOP1', status: 'ENABLED' })],
        ['SHOP2', merchantEntity({ id: 'SHOP2', status: 'ENABLED' })],
      ]);
      const findById = jest.fn(async (id: string) => ({ ...stored.get(id)! }));
      const merchants = { findById } as unknown as MerchantRepository;
      const directory = new MerchantDirectory(merchants, { cacheTtlMs: 600_000 }, { warn: jest.fn() } as unknown as AppLogger);
      return { directory, findById, disable: (id: string) => stored.set(id, merchantEntity({ id, status: 'DISABLED' })) };
    }

    it('reads a forgotten merchant again, and only that one', async () => {
      const { directory, findById, disable } = directoryOverChangingDatabase();
      await directory.find('SHOP1');
      await directory.find('SHOP2');
      disable('SHOP1');
      disable('SHOP2');
      directory.forget('SHOP1');
      expect(await directory.find('SHOP1')).toMatchObject({ status: 'DISABLED' });
      expect(await directory.find('SHOP2')).toMatchObject({ status: 'ENABLED' });
      expect(findById).toHaveBeenCalledTimes(3);
    });

    it('does not keep what a read under way when the merchant changed answers: it may predate the change', async () => {
      const { directory, findById, disable } = directoryOverChangingDatabase();
      let answerBeforeChange!: (merchant: MerchantEntity) => void;
      findById.mockImplementationOnce(() => new Promise((resolve) => (answerBeforeChange = resolve)));
      const underWay = directory.find('SHOP1');
      disable('SHOP1');
      directory.forget('SHOP1');
      answerBeforeChange(merchantEntity({ id: 'SHOP1', status: 'ENABLED' }));
      await underWay;
      expect(await directory.find('SHOP1')).toMatchObject({ status: 'DISABLED' });
    });

    it('reads every merchant again after forgetAll, and drops the answers of reads under way', async () => {
      const { directory, disable, findById } = directoryOverChangingDatabase();
      await directory.find('SHOP1');
      let answerBeforeChange!: (merchant: MerchantEntity) => void;
      findById.mockImplementationOnce(() => new Promise((resolve) => (answerBeforeChange = resolve)));
      const underWay = directory.find('SHOP2');
      disable('SHOP1');
      disable('SHOP2');
      directory.forgetAll();
      answerBeforeChange(merchantEntity({ id: 'SHOP2', status: 'ENABLED' }));
      await underWay;
      expect(await directory.find('SHOP1')).toMatchObject({ status: 'DISABLED' });
      expect(await directory.find('SHOP2')).toMatchObject({ status: 'DISABLED' });
    });
  });

  describe('storedSince (a password the cached profile refused)', () => {
    const INTERVAL = 300;

    /** A database whose merchant changes on demand; counts its reads. */
    function directoryOverChangingDatabase() {
      let stored: MerchantEntity | null = merchantEntity({ passwordHash: 'old' });
      const findById = jest.fn(async () => stored && { ...stored });
      const merchants = { findById } as unknown as MerchantRepository;
      const directory = new MerchantDirectory(merchants, { cacheTtlMs: 600_000, rereadIntervalMs: INTERVAL }, { warn: jest.fn() } as unknown as AppLogger);
      return { directory, findById, store: (merchant: MerchantEntity | null) => (stored = merchant) };
    }

    it('answers from the cache, without a read, when the cached profile was read since', async () => {
      const { directory, findById } = directoryOverChangingDatabase();
      const since = Date.now();
      const found = await directory.find('SHOP1');
      expect(await directory.storedSince('SHOP1', since)).toBe(found);
      expect(findById).toHaveBeenCalledTimes(1);
    });

    it('reads a profile cached before the request again, and caches what it read (a rotated password, a merchant created since)', async () => {
      const { directory, findById, store } = directoryOverChangingDatabase();
      expect(await directory.find('SHOP1')).toMatchObject({ passwordHash: 'old' });
      store(merchantEntity({ passwordHash: 'new' }));
      await sleep(INTERVAL);
      expect(await directory.storedSince('SHOP1', Date.now())).toMatchObject({ passwordHash: 'new' });
      expect(await directory.find('SHOP1')).toMatchObject({ passwordHash: 'new' });
      expect(findById).toHaveBeenCalledTimes(2);

      store(null);
      expect(await directory.find('NEW1')).toBeNull();
      store(merchantEntity({ id: 'NEW1', passwordHash: 'new' }));
      await sleep(INTERVAL);
      expect(await directory.storedSince('NEW1', Date.now())).toMatchObject({ id: 'NEW1' });
    });

    it('reads a merchant at most once per interval however many refusals come, each waiting at most the interval for the shared read', async () => {
      const { directory, findById } = directoryOverChangingDatabase();
      await directory.find('SHOP1');
      const started = Date.now();
      // A flood of wrong passwords, concurrent and one after another, for longer than two intervals.
      while (Date.now() - started < INTERVAL * 2 + 100) {
        const asked = Date.now();
        await Promise.all(Array.from({ length: 5 }, () => directory.storedSince('SHOP1', asked)));
        expect(Date.now() - asked).toBeLessThan(INTERVAL * 2);
      }
      const reads = findById.mock.calls.length - 1;
      expect(reads).toBeGreaterThanOrEqual(2);
      expect(reads).toBeLessThanOrEqual(Math.floor((Date.now() - started) / INTERVAL) + 1);
    });

    it('forgets a read that failed, so the next refusal tries again', async () => {
      const { directory, findById } = directoryOverChangingDatabase();
      await directory.find('SHOP1');
      findById.mockRejectedValueOnce(new Error('connection terminated'));
      await expect(directory.storedSince('SHOP1', Date.now() + 1)).rejects.toThrow('connection terminated');
      expect(await directory.storedSince('SHOP1', Date.now() + 1)).toMatchObject({ id: 'SHOP1' });
      expect(findById).toHaveBeenCalledTimes(3);
    });

    it('keeps the newer profile when an older read answers after a re-read', async () => {
      const { directory, findById, store } = directoryOverChangingDatabase();
      let answerOld!: (merchant: MerchantEntity) => void;
      findById.mockImplementationOnce(() => new Promise((resolve) => (answerOld = resolve)));
      const slow = directory.find('SHOP1');
      store(merchantEntity({ passwordHash: 'new' }));
      expect(await directory.storedSince('SHOP1', Date.now() + 1)).toMatchObject({ passwordHash: 'new' });
      answerOld(merchantEntity({ passwordHash: 'old' }));
      await slow;
      expect(await directory.find('SHOP1')).toMatchObject({ passwordHash: 'new' });
      expect(findById).toHaveBeenCalledTimes(2);
    });

    it('keeps a re-read under way when an older read fails, so lookups meanwhile share it', async () => {
      const { directory, findById } = directoryOverChangingDatabase();
      let failOld!: (err: Error) => void;
      findById.mockImplementationOnce(() => new Promise((_resolve, reject) => (failOld = reject)));
      const slow = directory.find('SHOP1').catch((err: Error) => err);
      const reread = directory.storedSince('SHOP1', Date.now() + 1);
      await sleep(INTERVAL + 50);
      expect(findById).toHaveBeenCalledTimes(2);
      failOld(new Error('connection terminated'));
      await slow;
      await Promise.all([reread, directory.find('SHOP1')]);
      expect(findById).toHaveBeenCalledTimes(2);
    });
  });
});
