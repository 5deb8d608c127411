import { validateTokenRequest } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testEnvelope, testMerchant, vaultTestBed } from '../testing/vault-test-bed';

describe('ReencryptTokens', () => {
  it('re-seals every token under the ACTIVE key in batches, and they still open', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    for (let i = 0; i < 7; i++) {
      await bed.save.execute({
        envelope: testEnvelope(merchant),
        fields: validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } }),
      });
    }
    const newKey = await bed.keys.rotateDataKey();
    const batches: number[] = [];
    const result = await bed.reencrypt.execute({ batchSize: 3, onBatch: ({ reencrypted }) => batches.push(reencrypted) });
    expect(result).toEqual({ activeKeyId: newKey, reencrypted: 7, remaining: 0 });
    expect(batches).toEqual([3, 6, 7]);
    for (const row of bed.store.rows.values()) {
      expect(row.dataKeyId).toBe(newKey);
      const opened = await bed.sealing.openInstrument(row);
      expect(opened.type === 'CARD' && opened.pan.reveal()).toBe(TEST_CARD);
    }
    expect(await bed.reencrypt.execute({ batchSize: 3 })).toEqual({ activeKeyId: newKey, reencrypted: 0, remaining: 0 });
  });

  it('waits for rows another transaction holds and re-seals them once they are free', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    await bed.save.execute({
      envelope: testEnvelope(merchant),
      fields: validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } }),
    });
    const newKey = await bed.keys.rotateDataKey();
    const reencryptBatch = bed.store.reencryptBatch.bind(bed.store);
    // The first two rounds find every remaining row locked (SKIP LOCKED returns nothing).
    jest.spyOn(bed.store, 'reencryptBatch').mockResolvedValueOnce(0).mockResolvedValueOnce(0).mockImplementation(reencryptBatch);
    const result = await bed.reencrypt.execute({ batchSize: 3, lockedRetryDelayMs: 0 });
    expect(result).toEqual({ activeKeyId: newKey, reencrypted: 1, remaining: 0 });
  });
});
