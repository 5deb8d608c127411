import { defaultMerchantSettings, GatewayError, SUBJECTS } from '@gateway/contracts';
import { MemorySessionStore, StoredSession } from '@gateway/edge/data-access';
import { createLogger, MessageBus } from '@gateway/platform';
import { ApplySession } from '../apply-session/apply-session.use-case';
import { SessionEditor } from '../sessions/session-editor';
import { UsedSecurityCodes } from '../sessions/used-security-codes';
import { DispatchTokenOperation } from './dispatch-token-operation.use-case';

const context = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST' as const, settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD' as const,
  apiVersion: 100,
  requestId: 'req-1',
};
const SESSION = 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA';
const masked = { number: '512345xxxxxx0008' };
const body = { session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } };

/** A session whose card holds a security code; the vault answers saves with `reply` and seals the card again without the code. */
async function withSession(reply: () => Promise<unknown>) {
  const request = jest.fn(async (subject: string) =>
    subject === SUBJECTS.tokenVault.sealCard ? { sealed: 'sealed-without-code', card: masked, securityCodePresent: false } : reply(),
  );
  const bus = { request } as unknown as MessageBus;
  const sessions = new MemorySessionStore();
  const logger = createLogger({ service: 'test', level: 'silent' });
  const dispatch = new DispatchTokenOperation(bus, new ApplySession(sessions), new UsedSecurityCodes(new SessionEditor(bus), sessions, logger));
  const session: StoredSession = {
    id: SESSION,
    merchantId: context.merchant.id,
    version: 'aaaaaaaaaa',
    updateStatus: 'SUCCESS',
    fields: {},
    card: { sealed: 'sealed-with-code', masked, securityCodePresent: true, securityCodeGivenIn: 'aaaaaaaaaa' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  await sessions.create(session, { ttlMs: 60_000, expiredNoticeMs: 60_000 });
  const stored = async () => {
    const found = await sessions.find(context.merchant.id, SESSION);
    return found.state === 'ACTIVE' ? found.session : null;
  };
  const calls = () => request.mock.calls.map((call) => call as unknown as [string, Record<string, unknown>]);
  return { dispatch, calls, stored };
}

describe('DispatchTokenOperation: a session\'s security code', () => {
  it('goes to the vault with the session\'s sealed card on a save, and is forgotten after', async () => {
    const { dispatch, calls, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    expect(await dispatch.execute({ ...context, tokenId: '9999990000000001', body })).toEqual({ result: 'SUCCESS' });
    expect(calls().map(([subject]) => subject)).toEqual([SUBJECTS.tokenVault.saveToken, SUBJECTS.tokenVault.sealCard]);
    const [, message] = calls()[0];
    expect(message).toMatchObject({ tokenId: '9999990000000001', session: { id: SESSION, sealedCard: 'sealed-with-code' } });
    expect(message).not.toHaveProperty('securityCode');
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is forgotten after a creation with a token the vault generates', async () => {
    const { dispatch, calls, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    await dispatch.create({ ...context, body });
    expect(calls().map(([subject]) => subject)).toEqual([SUBJECTS.tokenVault.createToken, SUBJECTS.tokenVault.sealCard]);
    expect(calls()[0][1]).toMatchObject({ session: { id: SESSION, sealedCard: 'sealed-with-code' } });
    expect(calls()[0][1]).not.toHaveProperty('securityCode');
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is forgotten when the vault failed the save too: it may have verified the card with it', async () => {
    const { dispatch, stored } = await withSession(() => Promise.reject(new GatewayError('SERVER_FAILED', { explanation: 'down' })));
    await expect(dispatch.execute({ ...context, tokenId: '9999990000000001', body })).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });
});
