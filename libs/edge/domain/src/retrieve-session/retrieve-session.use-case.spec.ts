import { defaultMerchantSettings, SUBJECTS } from '@gateway/contracts';
import type { SessionStore, StoredSession } from '@gateway/edge/data-access';
import { MessageBus, NotDeliveredError } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { RetrieveSession } from './retrieve-session.use-case';

/** When the edge stops waiting for the vault's reveal (MessageBus.deadline). */
const DEADLINE = 1_800_000_000_000;

const context: RequestContext = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  authMethod: 'CERTIFICATE',
  apiVersion: 100,
  requestId: 'req-1',
};

const session: StoredSession = {
  id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA',
  merchantId: 'TESTMERCHANT',
  version: 'aaaaaaaaaa',
  updateStatus: 'SUCCESS',
  fields: {},
  card: { sealed: 'sealed-card', masked: { number: '512345xxxxxx0008' }, securityCodePresent: false },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function retrieval(reveal: (subject: string) => Promise<unknown>) {
  const store = { find: async () => ({ state: 'ACTIVE', session }) } as unknown as SessionStore;
  const request = jest.fn(reveal);
  return { retrieve: new RetrieveSession(store, { request, deadline: () => DEADLINE } as unknown as MessageBus), request };
}

describe('RetrieveSession with UNMASK', () => {
  it("stamps the vault's reveal with the edge's deadline, not on the envelope: the vault opens nothing nobody waits for", async () => {
    const { retrieve, request } = retrieval(async () => ({ number: '5123450000000008' }));

    const view = await retrieve.execute(context, session.id, true);

    expect(view).toMatchObject({ sourceOfFunds: { provided: { card: { number: '5123450000000008' } } } });
    const calls = request.mock.calls as unknown as [string, { deadline?: number; envelope: object; bindingId: string; sealed: string }][];
    expect(calls).toHaveLength(1);
    const [subject, message] = calls[0];
    expect(subject).toBe(SUBJECTS.tokenVault.revealCard);
    expect(message).toMatchObject({ bindingId: session.id, sealed: 'sealed-card', deadline: DEADLINE });
    expect(message.envelope).not.toHaveProperty('deadline');
  });

  it('answers a reveal the vault refused past its deadline as any read it could not make: SERVER_BUSY, the plain explanation', async () => {
    const { retrieve } = retrieval((subject) => Promise.reject(new NotDeliveredError(subject)));
    await expect(retrieve.execute(context, session.id, true)).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      explanation: 'The gateway is busy. Please retry the request.',
      retryAfterSeconds: 1,
    });
  });

  it('asks the vault nothing without UNMASK', async () => {
    const { retrieve, request } = retrieval(async () => ({ number: '5123450000000008' }));
    await expect(retrieve.execute(context, session.id)).resolves.toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
    expect(request).not.toHaveBeenCalled();
  });
});

describe('RetrieveSession of a session that is gone', () => {
  const gone = (state: 'EXPIRED' | 'UNKNOWN') => new RetrieveSession({ find: async () => ({ state }) } as unknown as SessionStore, {} as MessageBus);

  it('answers an expired session as expired (400 on sessionid) and an unknown one as NOT_FOUND', async () => {
    await expect(gone('EXPIRED').execute(context, session.id)).rejects.toMatchObject({
      code: 'INVALID_FIELD',
      field: 'sessionid',
      explanation: expect.stringContaining('expired'),
    });
    await expect(gone('UNKNOWN').execute(context, session.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
