import { defaultMerchantSettings } from '@gateway/contracts';
import type { CallAcquirer, RevealSessionCard, SealSessionCard } from '@gateway/token-vault/domain';
import { CardCustodyNatsController } from './card-custody.nats-controller';

const envelope = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  apiVersion: 100,
  requestId: 'req-1',
  authMethod: 'CERTIFICATE',
};

function controller() {
  const seal = { execute: jest.fn(async () => ({ sealed: 'sealed', card: {}, securityCodePresent: false })) };
  const reveal = { execute: jest.fn(async () => ({ number: '5123450000000008' })) };
  const handlers = new CardCustodyNatsController(seal as unknown as SealSessionCard, {} as CallAcquirer, reveal as unknown as RevealSessionCard);
  return { handlers, seal, reveal };
}

/** docs/decisions/operation-deadline.md: the use cases refuse a read past the edge's deadline, so they must be given it. */
describe('CardCustodyNatsController', () => {
  it("hands the seal and the reveal the edge's deadline", async () => {
    const { handlers, seal, reveal } = controller();
    await handlers.seal({ envelope, bindingId: 'SESSION1', card: {}, deadline: 1_800_000_000_000 });
    await handlers.reveal({ envelope, bindingId: 'SESSION1', sealed: 'sealed', deadline: 1_800_000_000_001 });
    expect(seal.execute).toHaveBeenCalledWith(expect.objectContaining({ deadline: 1_800_000_000_000 }));
    expect(reveal.execute).toHaveBeenCalledWith(expect.objectContaining({ bindingId: 'SESSION1', sealed: 'sealed', deadline: 1_800_000_000_001 }));
  });

  it('gives none for a message without one (an edge of the release before)', async () => {
    const { handlers, reveal } = controller();
    await handlers.reveal({ envelope, bindingId: 'SESSION1', sealed: 'sealed' });
    expect(reveal.execute).toHaveBeenCalledWith(expect.not.objectContaining({ deadline: expect.anything() }));
  });
});
