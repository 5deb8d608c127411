import { validateTokenRequest } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testEnvelope, testMerchant, vaultTestBed } from '../testing/vault-test-bed';

describe('RetrieveToken and DeleteToken', () => {
  async function withToken() {
    const bed = await vaultTestBed();
    const merchant = testMerchant({ generation: 'MERCHANT_SUPPLIED' });
    await bed.save.execute({
      envelope: testEnvelope(merchant),
      tokenId: 'tok1',
      fields: validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } }),
    });
    return { bed, merchant };
  }

  it('retrieves a token masked, without a response code', async () => {
    const { bed, merchant } = await withToken();
    const body = await bed.retrieve.execute({ merchant, tokenId: 'tok1' });
    expect(body).toMatchObject({
      result: 'SUCCESS',
      token: 'tok1',
      repositoryId: 'Test1000000001',
      status: 'VALID',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: '0139', brand: 'MASTERCARD' } } },
    });
    expect(body.response).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain(TEST_CARD);
  });

  it('finds tokens only in the merchant\'s own repository', async () => {
    const { bed } = await withToken();
    const other = testMerchant({ id: '2000000002' });
    await expect(bed.retrieve.execute({ merchant: other, tokenId: 'tok1' })).rejects.toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
  });

  it('deletes a token, after which it is gone', async () => {
    const { bed, merchant } = await withToken();
    expect(await bed.remove.execute({ merchant, tokenId: 'tok1' })).toEqual({ result: 'SUCCESS' });
    expect(bed.store.rows.size).toBe(0);
    await expect(bed.retrieve.execute({ merchant, tokenId: 'tok1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(bed.remove.execute({ merchant, tokenId: 'tok1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
