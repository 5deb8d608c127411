import { validateTokenRequest } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testEnvelope, testMerchant, vaultTestBed } from '../testing/vault-test-bed';

describe('RetrieveToken and DeleteToken', () => {
  async function withToken(unmask = false) {
    const bed = await vaultTestBed();
    const merchant = testMerchant({ generation: 'MERCHANT_SUPPLIED', unmask });
    await bed.save.execute({
      envelope: testEnvelope(merchant),
      tokenId: 'tok1',
      fields: validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } }),
    });
    return { bed, merchant };
  }

  it('retrieves a token masked, without a response code', async () => {
    const { bed, merchant } = await withToken();
    const body = await bed.retrieve.execute({ merchant, authMethod: 'PASSWORD', tokenId: 'tok1' });
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

  it('answers INVALID for a token stored as invalid, though its card has not expired', async () => {
    const { bed, merchant } = await withToken();
    for (const row of bed.store.rows.values()) {
      row.status = 'INVALID';
    }
    expect(await bed.retrieve.execute({ merchant, authMethod: 'PASSWORD', tokenId: 'tok1' })).toMatchObject({ status: 'INVALID' });
  });

  it('shows the full number with UNMASK, the permission and certificate authentication', async () => {
    const { bed, merchant } = await withToken(true);
    const body = await bed.retrieve.execute({ merchant, authMethod: 'CERTIFICATE', tokenId: 'tok1', responseControls: { sensitiveData: 'UNMASK' } });
    expect(body.sourceOfFunds).toMatchObject({ provided: { card: { number: TEST_CARD, expiry: '0139' } } });
  });

  it.each([
    ['password authentication', true, 'PASSWORD'],
    ['no permission', false, 'CERTIFICATE'],
  ] as const)('refuses UNMASK with %s: a 400 on the field, never the number', async (_name, permission, authMethod) => {
    const { bed, merchant } = await withToken(permission);
    await expect(bed.retrieve.execute({ merchant, authMethod, tokenId: 'tok1', responseControls: { sensitiveData: 'UNMASK' } })).rejects.toMatchObject({
      code: 'INVALID_FIELD',
      field: 'responseControls.sensitiveData',
    });
  });

  it('finds tokens only in the merchant\'s own repository', async () => {
    const { bed } = await withToken();
    const other = testMerchant({ id: '2000000002' });
    await expect(bed.retrieve.execute({ merchant: other, authMethod: 'PASSWORD', tokenId: 'tok1' })).rejects.toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
  });

  it('masks a card number given as the token in its 404, on GET and DELETE', async () => {
    const { bed, merchant } = await withToken();
    const attempts = [() => bed.retrieve.execute({ merchant, authMethod: 'PASSWORD', tokenId: TEST_CARD }), () => bed.remove.execute({ merchant, tokenId: TEST_CARD })];
    for (const attempt of attempts) {
      const error = await attempt().catch((err: unknown) => err);
      expect(error).toMatchObject({ code: 'NOT_FOUND', explanation: "Token '512345xxxxxx0008' does not exist in repository Test1000000001." });
    }
  });

  it('deletes a token, after which it is gone', async () => {
    const { bed, merchant } = await withToken();
    expect(await bed.remove.execute({ merchant, tokenId: 'tok1' })).toEqual({ result: 'SUCCESS' });
    expect(bed.store.rows.size).toBe(0);
    await expect(bed.retrieve.execute({ merchant, authMethod: 'PASSWORD', tokenId: 'tok1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(bed.remove.execute({ merchant, tokenId: 'tok1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
