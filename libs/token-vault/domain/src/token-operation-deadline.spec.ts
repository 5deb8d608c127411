import { setTimeout as sleep } from 'node:timers/promises';
import { validateTokenRequest } from '@gateway/contracts';
import { PastDeadlineAfterCallsError, PastDeadlineError } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testEnvelope, testMerchant, vaultTestBed } from './testing/vault-test-bed';
import type { VerificationOutcome } from './verification/card-verification';

/**
 * The edge's deadline on token operations (docs/decisions/operation-deadline.md, amendment on
 * token operations): a save, create or delete the vault could only begin after the edge stopped
 * waiting is refused unprocessed, before anything is asked of anyone and again once its write
 * holds its connection (here: after the store's wait, `beforeWrite`); a GET is not read.
 */
describe('token operations past the edge\'s deadline', () => {
  const card = validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } }, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
  const otherExpiry = validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.DECLINED } } } });

  async function setUp() {
    const verified: string[] = [];
    const bed = await vaultTestBed({
      acquirer: { verify: async ({ reference }): Promise<VerificationOutcome> => (verified.push(reference), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) },
    });
    const merchant = testMerchant({ generation: 'MERCHANT_SUPPLIED' });
    const save = (tokenId: string, fields = card, deadline?: number) => bed.save.execute({ envelope: testEnvelope(merchant), tokenId, fields, deadline });
    /** The store's writes wait (the pool's queue) until the deadline has passed. */
    const writesWaitPast = (deadline: number) => {
      bed.store.beforeWrite = async () => {
        while (Date.now() <= deadline) await sleep(5);
      };
    };
    return { bed, merchant, save, verified, writesWaitPast };
  }

  it('refuses a save whose deadline passed before it began: no verification, nothing stored', async () => {
    const { bed, save, verified } = await setUp();
    await expect(save('t1', card, Date.now() - 1)).rejects.toBeInstanceOf(PastDeadlineError);
    expect(verified).toEqual([]);
    expect(bed.store.rows.size).toBe(0);
  });

  it('refuses a new token whose write waited past the deadline: nothing stored, the retry saves it', async () => {
    const { bed, save, writesWaitPast } = await setUp();
    const deadline = Date.now() + 30;
    writesWaitPast(deadline);
    await expect(save('t1', card, deadline)).rejects.toBeInstanceOf(PastDeadlineError);
    expect(bed.store.rows.size).toBe(0);
    bed.store.beforeWrite = undefined;
    await expect(save('t1', card, Date.now() + 10_000)).resolves.toMatchObject({ result: 'SUCCESS', token: 't1' });
    expect(bed.store.rows.size).toBe(1);
  });

  it('refuses an update whose write waited past the deadline: the token stays as it was', async () => {
    const { bed, save, writesWaitPast } = await setUp();
    await save('t1');
    const deadline = Date.now() + 30;
    writesWaitPast(deadline);
    await expect(save('t1', otherExpiry, deadline)).rejects.toBeInstanceOf(PastDeadlineError);
    expect([...bed.store.rows.values()][0]).toMatchObject({ version: 1, cardExpiry: '0139' });
  });

  it('saves in time, and without a deadline (an edge of the release before) whatever the time', async () => {
    const { bed, save, writesWaitPast } = await setUp();
    await expect(save('t1', card, Date.now() + 10_000)).resolves.toMatchObject({ result: 'SUCCESS' });
    writesWaitPast(Date.now() + 30);
    await expect(save('t2', card, undefined)).resolves.toMatchObject({ result: 'SUCCESS' });
    expect(bed.store.rows.size).toBe(2);
  });

  it('refuses a delete whose statement waited past the deadline: the token stays', async () => {
    const { bed, merchant, save, writesWaitPast } = await setUp();
    await save('t1');
    const deadline = Date.now() + 30;
    writesWaitPast(deadline);
    await expect(bed.remove.execute({ merchant, tokenId: 't1', deadline })).rejects.toBeInstanceOf(PastDeadlineError);
    expect(bed.store.rows.size).toBe(1);
    await expect(bed.remove.execute({ merchant, tokenId: 't1' })).resolves.toEqual({ result: 'SUCCESS' });
    expect(bed.store.rows.size).toBe(0);
  });

  it('does not read a token for a GET nobody waits for any more', async () => {
    const { bed, merchant, save } = await setUp();
    await save('t1');
    const findByToken = jest.spyOn(bed.store, 'findByToken');
    await expect(bed.retrieve.execute({ merchant, authMethod: 'PASSWORD', tokenId: 't1', deadline: Date.now() - 1 })).rejects.toBeInstanceOf(PastDeadlineError);
    expect(findByToken).not.toHaveBeenCalled();
    await expect(bed.retrieve.execute({ merchant, authMethod: 'PASSWORD', tokenId: 't1', deadline: Date.now() + 10_000 })).resolves.toMatchObject({ token: 't1' });
  });

  it('refuses a write past the deadline after the acquirer verified the card, but not as unprocessed: the edge must not give the security code back', async () => {
    const { bed, save, verified, writesWaitPast } = await setUp();
    const deadline = Date.now() + 30;
    writesWaitPast(deadline);
    const err = (await save('t1', card, deadline).catch((e: unknown) => e)) as PastDeadlineError;
    expect(verified).toHaveLength(1);
    expect(err).toBeInstanceOf(PastDeadlineError);
    expect(err.toWire()).toMatchObject({ code: 'SERVER_BUSY' });
    expect(err.toWire()).not.toHaveProperty('notActedOn');
    expect(bed.store.rows.size).toBe(0);
  });

  it.each([
    [
      'a token service provider tokenized the card (scheme tokenization, no verification)',
      { schemeTokenization: true },
      validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } }, verificationStrategy: 'NONE' }),
    ],
    [
      'a token service provider provisioned the card (push provisioning)',
      {},
      validateTokenRequest({ sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: 'ISSUER-REF-1' }, verificationStrategy: 'NONE' }),
    ],
  ] as const)('refuses a write past the deadline after %s, but not as unprocessed', async (_what, repository, fields) => {
    const { bed, verified, writesWaitPast } = await setUp();
    const merchant = testMerchant({ generation: 'MERCHANT_SUPPLIED', ...repository });
    const deadline = Date.now() + 30;
    writesWaitPast(deadline);
    const err = (await bed.save.execute({ envelope: testEnvelope(merchant), tokenId: 't1', fields, deadline }).catch((e: unknown) => e)) as PastDeadlineError;
    expect(verified).toEqual([]);
    expect(err).toBeInstanceOf(PastDeadlineAfterCallsError);
    expect(err.toWire()).toMatchObject({ code: 'SERVER_BUSY', retryAfterSeconds: 1 });
    expect(err.toWire()).not.toHaveProperty('notActedOn');
    expect(bed.store.rows.size).toBe(0);
  });

  it('refuses a write whose connection is held exactly at the deadline, as the check before the save does', async () => {
    const { bed, save } = await setUp();
    const deadline = Date.now() + 10_000;
    // The store's wait ends at the deadline's very millisecond.
    bed.store.beforeWrite = () => void jest.spyOn(Date, 'now').mockReturnValue(deadline);
    try {
      await expect(save('t1', card, deadline)).rejects.toBeInstanceOf(PastDeadlineError);
    } finally {
      jest.restoreAllMocks();
    }
    expect(bed.store.rows.size).toBe(0);
  });

  it('still refuses a write past the deadline as unprocessed when the save asked nobody', async () => {
    const { bed, save, verified, writesWaitPast } = await setUp();
    const deadline = Date.now() + 30;
    writesWaitPast(deadline);
    const unverified = validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } }, verificationStrategy: 'NONE' });
    const err = (await save('t1', unverified, deadline).catch((e: unknown) => e)) as PastDeadlineError;
    expect(verified).toEqual([]);
    expect(err.toWire()).toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
    expect(bed.store.rows.size).toBe(0);
  });
});
