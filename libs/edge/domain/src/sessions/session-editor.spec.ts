import { defaultMerchantSettings, SUBJECTS } from '@gateway/contracts';
import type { StoredSession } from '@gateway/edge/data-access';
import type { MessageBus } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { SessionEditor } from './session-editor';

/** When the edge stops waiting for the vault's seal (MessageBus.deadline). */
const DEADLINE = 1_800_000_000_000;

const context: RequestContext = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD',
  apiVersion: 100,
  requestId: 'req-1',
};

/** The vault: a sealed card that holds a code when the update or the previous card had one. */
function editor() {
  let sealings = 0;
  const request = jest.fn(async (_subject: string, message: { card: { securityCode?: string }; previous?: string }) => ({
    sealed: `sealed-${++sealings}`,
    card: { number: '512345xxxxxx0008' },
    securityCodePresent: message.card.securityCode !== undefined || message.previous === 'with-code',
  }));
  return new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus);
}

const empty: StoredSession = {
  id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA',
  merchantId: 'TESTMERCHANT',
  version: 'aaaaaaaaaa',
  updateStatus: 'NO_UPDATE',
  fields: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const at = new Date('2026-01-01T00:01:00.000Z');

describe('SessionEditor: where a card\'s security code came from', () => {
  it('is the update that gave the code', async () => {
    const next = await editor().applied(context, empty, { fields: {}, card: { securityCode: '100' } }, at, DEADLINE);
    expect(next.card).toMatchObject({ securityCodePresent: true, securityCodeGivenIn: next.version });
  });

  it('stays the earlier update\'s when a later one changes the card without a code', async () => {
    const session = { ...empty, card: { sealed: 'with-code', masked: {}, securityCodePresent: true, securityCodeGivenIn: 'earlier123' } };
    const next = await editor().applied(context, session, { fields: {}, card: { expiry: { month: '1', year: '39' } } }, at, DEADLINE);
    expect(next.card).toMatchObject({ sealed: 'sealed-1', securityCodePresent: true, securityCodeGivenIn: 'earlier123' });
  });

  it('is nothing for a card without a code', async () => {
    const next = await editor().applied(context, empty, { fields: {}, card: { expiry: { month: '1', year: '39' } } }, at, DEADLINE);
    expect(next.card).toEqual({ sealed: 'sealed-1', masked: { number: '512345xxxxxx0008' }, securityCodePresent: false });
  });
});

describe('SessionEditor: a card sealed again without its security code', () => {
  const session: StoredSession = {
    ...empty,
    card: { sealed: 'with-code', masked: {}, securityCodePresent: true, securityCodeGivenIn: 'earlier123' },
  };

  it('is the vault\'s card without the code', async () => {
    const request = jest.fn(async () => ({ sealed: 'sealed-1', card: {}, securityCodePresent: false }));
    const card = await new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus).withoutSecurityCode(context, session, DEADLINE);
    expect(card).toEqual({ sealed: 'sealed-1', masked: {}, securityCodePresent: false });
  });

  it("carries the request's deadline, as every seal does, and is sent with the time left to it: the vault refuses a seal nobody waits for any more", async () => {
    const request = jest.fn(async () => ({ sealed: 'sealed-1', card: {}, securityCodePresent: false }));
    // The budget the request's other sends share, older than a deadline taken now.
    const shared = DEADLINE - 7_000;
    await new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus).withoutSecurityCode(context, session, shared);
    await new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus).applied(context, session, { fields: {}, card: { nameOnCard: 'Ada' } }, new Date(), shared);
    expect(request).toHaveBeenCalledTimes(2);
    for (const [subject, message, options] of request.mock.calls as unknown as [string, { deadline?: number; envelope: object }, { deadline?: number }][]) {
      expect(subject).toBe(SUBJECTS.tokenVault.sealCard);
      expect(message.deadline).toBe(shared);
      expect(options).toEqual({ deadline: shared });
      expect(message.envelope).not.toHaveProperty('deadline');
    }
  });

  it('is refused as SERVER_BUSY when the vault kept the code (a vault of the release before the flag, during a roll)', async () => {
    // editor()'s vault ignores withoutSecurityCode, as one of the previous release does.
    await expect(editor().withoutSecurityCode(context, session, DEADLINE)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
  });
});
