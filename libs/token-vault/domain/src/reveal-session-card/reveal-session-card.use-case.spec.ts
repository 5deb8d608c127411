import { MerchantContext } from '@gateway/contracts';
import { PastDeadlineError } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testMerchant, vaultTestBed } from '../testing/vault-test-bed';
import { RevealSessionCard } from './reveal-session-card.use-case';

function permitted(merchant: MerchantContext, unmask: boolean): MerchantContext {
  return { ...merchant, settings: { ...merchant.settings, privileges: { ...merchant.settings.privileges, unmask } } };
}

describe('RevealSessionCard', () => {
  async function sealedCard() {
    const bed = await vaultTestBed();
    const merchant = permitted(testMerchant(), true);
    const reveal = new RevealSessionCard(bed.sessionCards);
    const { sealed } = await bed.sealSessionCard.execute({
      merchant,
      bindingId: 'SESSION1',
      card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' },
    });
    return { bed, merchant, reveal, sealed };
  }

  it('answers the number, never the security code, with the permission and certificate authentication', async () => {
    const { merchant, reveal, sealed } = await sealedCard();
    const reply = await reveal.execute({ merchant, authMethod: 'CERTIFICATE', bindingId: 'SESSION1', sealed });
    expect(reply).toEqual({ number: TEST_CARD });
  });

  it("refuses, unprocessed, a reveal past the edge's deadline without opening the card; reveals one in time", async () => {
    const { bed, merchant, reveal, sealed } = await sealedCard();
    const open = jest.spyOn(bed.sessionCards, 'open');
    await expect(reveal.execute({ merchant, authMethod: 'CERTIFICATE', bindingId: 'SESSION1', sealed, deadline: Date.now() - 1 })).rejects.toBeInstanceOf(PastDeadlineError);
    expect(open).not.toHaveBeenCalled();
    const inTime = await reveal.execute({ merchant, authMethod: 'CERTIFICATE', bindingId: 'SESSION1', sealed, deadline: Date.now() + 60_000 });
    expect(inTime).toEqual({ number: TEST_CARD });
  });

  it('applies the unmask rule itself: password authentication or no permission is the 400, nothing opened', async () => {
    const { merchant, reveal, sealed } = await sealedCard();
    const refused = expect.objectContaining({ field: 'responseControls.sensitiveData', validationType: 'INVALID' });
    await expect(reveal.execute({ merchant, authMethod: 'PASSWORD', bindingId: 'SESSION1', sealed })).rejects.toEqual(refused);
    await expect(
      reveal.execute({ merchant: permitted(merchant, false), authMethod: 'CERTIFICATE', bindingId: 'SESSION1', sealed }),
    ).rejects.toEqual(refused);
  });

  it('opens only for the session and merchant the card was sealed for', async () => {
    const { merchant, reveal, sealed } = await sealedCard();
    const unusable = expect.objectContaining({ field: 'session.id', validationType: 'INVALID' });
    await expect(reveal.execute({ merchant, authMethod: 'CERTIFICATE', bindingId: 'SESSION2', sealed })).rejects.toEqual(unusable);
    await expect(
      reveal.execute({ merchant: { ...merchant, id: 'TESTOTHER' }, authMethod: 'CERTIFICATE', bindingId: 'SESSION1', sealed }),
    ).rejects.toEqual(unusable);
  });
});
