import { GatewayError } from '@gateway/contracts';
import { PastDeadlineError } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testMerchant, vaultTestBed } from '../testing/vault-test-bed';

describe('SealSessionCard', () => {
  it('seals the card for one merchant and session: it opens there and nowhere else', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const reply = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION1', card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } });
    const opened = await bed.sessionCards.open({ merchantId: merchant.id, bindingId: 'SESSION1' }, reply.sealed);
    expect(opened.number?.reveal()).toBe(TEST_CARD);
    expect(opened.securityCode?.reveal()).toBe('100');
    for (const binding of [
      { merchantId: merchant.id, bindingId: 'SESSION2' },
      { merchantId: testMerchant().id, bindingId: 'SESSION1' },
    ]) {
      await expect(bed.sessionCards.open(binding, reply.sealed)).rejects.toEqual(
        expect.objectContaining({ code: 'INVALID_FIELD', field: 'session.id', validationType: 'INVALID' }),
      );
    }
  });

  it("refuses, unprocessed, a seal past the edge's deadline without opening the previous value; seals one in time", async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const first = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION5', card: { number: TEST_CARD, securityCode: '100' } });
    const open = jest.spyOn(bed.sessionCards, 'open');
    const openPrevious = jest.spyOn(bed.sessionCards, 'openPrevious');
    await expect(
      bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION5', card: {}, previous: first.sealed, withoutSecurityCode: true, deadline: Date.now() - 1 }),
    ).rejects.toBeInstanceOf(PastDeadlineError);
    await expect(
      bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION5', card: { nameOnCard: 'Ada' }, previous: first.sealed, deadline: Date.now() - 1 }),
    ).rejects.toBeInstanceOf(PastDeadlineError);
    expect(open).not.toHaveBeenCalled();
    expect(openPrevious).not.toHaveBeenCalled();
    const inTime = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION5', card: {}, previous: first.sealed, withoutSecurityCode: true, deadline: Date.now() + 60_000 });
    expect(inTime.securityCodePresent).toBe(false);
  });

  it("keeps the previous card's fields an update leaves out, also when the update's card holds them as undefined (a parsed message's declared fields)", async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const first = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION6', card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, nameOnCard: 'Ada' } });
    // The payer enters only the security code: number, expiry and name stay as they were.
    const codeOnly = { number: undefined, expiry: undefined, nameOnCard: undefined, securityCode: '100' };
    const next = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION6', card: codeOnly, previous: first.sealed });
    expect(next).toMatchObject({ securityCodePresent: true, card: first.card });
    const opened = await bed.sessionCards.open({ merchantId: merchant.id, bindingId: 'SESSION6' }, next.sealed);
    expect(opened.number?.reveal()).toBe(TEST_CARD);
    expect(opened.expiry).toEqual(TEST_EXPIRY.APPROVED);
    expect(opened.nameOnCard).toBe('Ada');
    expect(opened.securityCode?.reveal()).toBe('100');
  });

  it('seals the same card differently every time, with nothing of it in clear', async () => {
    const bed = await vaultTestBed();
    const card = { number: TEST_CARD, securityCode: '7319' };
    const a = await bed.sealSessionCard.execute({ merchant: testMerchant(), bindingId: 'S', card });
    const b = await bed.sealSessionCard.execute({ merchant: testMerchant(), bindingId: 'S', card });
    expect(a.sealed).not.toBe(b.sealed);
    const bytes = Buffer.from(a.sealed.slice(4), 'base64url').toString('latin1');
    expect(`${a.sealed}${bytes}`).not.toMatch(/5123450000000008|7319/);
  });

  it('seals the card again without its security code once an operation used it, keeping the rest', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const binding = { merchantId: merchant.id, bindingId: 'SESSION4' };
    const first = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION4', card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100', nameOnCard: 'Ada' } });
    const spent = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION4', card: {}, previous: first.sealed, withoutSecurityCode: true });
    expect(spent).toMatchObject({ securityCodePresent: false, card: first.card });
    const before = await bed.sessionCards.open(binding, first.sealed);
    const opened = await bed.sessionCards.open(binding, spent.sealed);
    expect(before.securityCode?.reveal()).toBe('100');
    expect(opened.securityCode).toBeUndefined();
    expect(opened.number?.reveal()).toBe(TEST_CARD);
    expect(opened.expiry).toEqual(before.expiry);
    expect(opened.nameOnCard).toBe('Ada');
  });

  it('merges an update into the previous value: given fields win, absent fields are kept', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const bindingId = 'SESSION3';
    const first = await bed.sealSessionCard.execute({ merchant, bindingId, card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, nameOnCard: 'First Name' } });
    expect(first.securityCodePresent).toBe(false);
    const second = await bed.sealSessionCard.execute({ merchant, bindingId, card: { expiry: TEST_EXPIRY.DECLINED, securityCode: '101' }, previous: first.sealed });
    expect(second).toMatchObject({
      card: { number: '512345xxxxxx0008', expiry: { month: '5', year: '39' }, nameOnCard: 'First Name', brand: 'MASTERCARD' },
      securityCodePresent: true,
    });
    const opened = await bed.sessionCards.open({ merchantId: merchant.id, bindingId }, second.sealed);
    expect(opened.expiry).toEqual(TEST_EXPIRY.DECLINED);
    expect(opened.securityCode?.reveal()).toBe('101');
  });

  it('shows an expiry month sent with a leading zero without it, as every response does', async () => {
    const bed = await vaultTestBed();
    const reply = await bed.sealSessionCard.execute({ merchant: testMerchant(), bindingId: 'S', card: { number: TEST_CARD, expiry: { month: '05', year: '39' } } });
    expect(reply.card).toMatchObject({ expiry: { month: '5', year: '39' } });
  });

  it('refuses a previous value sealed for another session', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const other = await bed.sealSessionCard.execute({ merchant, bindingId: 'OTHER', card: { number: TEST_CARD } });
    await expect(bed.sealSessionCard.execute({ merchant, bindingId: 'MINE', card: { securityCode: '100' }, previous: other.sealed })).rejects.toBeInstanceOf(
      GatewayError,
    );
  });

  it('replaces a previous value whose data key was destroyed after a rotation, but takes no code out of it', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const bindingId = 'SESSION5';
    const old = await bed.sealSessionCard.execute({ merchant, bindingId, card: { number: TEST_CARD, securityCode: '100' } });
    await bed.keys.rotateDataKey();
    expect((await bed.keys.destroyRetiredKeys(0)).destroyed).toEqual([1]);
    const spending = bed.sealSessionCard.execute({ merchant, bindingId, card: {}, previous: old.sealed, withoutSecurityCode: true });
    await expect(spending).rejects.toEqual(expect.objectContaining({ field: 'session.id', validationType: 'INVALID' }));
    const again = await bed.sealSessionCard.execute({ merchant, bindingId, card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED }, previous: old.sealed });
    const opened = await bed.sessionCards.open({ merchantId: merchant.id, bindingId }, again.sealed);
    expect(opened.number?.reveal()).toBe(TEST_CARD);
    expect(opened.securityCode).toBeUndefined();
  });
});
