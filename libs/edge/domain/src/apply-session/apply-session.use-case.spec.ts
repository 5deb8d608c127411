import {
  CaptureRequest,
  defaultMerchantSettings,
  GatewayError,
  MerchantContext,
  VerifyRequest,
} from '@gateway/contracts';
import { MemorySessionStore, StoredSession } from '@gateway/edge/data-access';
import { ApplySession } from './apply-session.use-case';

const merchant: MerchantContext = { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() };
const lifetime = { ttlMs: 60_000, expiredNoticeMs: 60_000 };

const stored: StoredSession = {
  id: 'SESSION0002APPLYAPPLYAPPLYAPPLYAP',
  merchantId: 'TESTMERCHANT',
  version: 'aaaaaaaaaa',
  updateStatus: 'SUCCESS',
  fields: { order: { currency: 'USD', reference: 'from-session' }, customer: { email: 'payer@example.com' } },
  card: {
    sealed: 'sealed-with-code',
    masked: { number: '512345xxxxxx0008' },
    securityCodePresent: true,
    securityCodeGivenIn: 'aaaaaaaaaa',
  },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** ApplySession over an in-memory store holding `stored`, on a clock the test moves. */
async function applying(): Promise<{
  apply: ApplySession;
  store: MemorySessionStore;
  advance: (ms: number) => void;
}> {
  let now = 1_000_000;
  const store = new MemorySessionStore(() => now);
  await store.create(stored, lifetime);
  return { apply: new ApplySession(store), store, advance: (ms) => (now += ms) };
}

describe('ApplySession (spec session rules)', () => {
  const stores: MemorySessionStore[] = [];
  afterAll(() => stores.forEach((s) => s.close()));

  async function setUp() {
    const set = await applying();
    stores.push(set.store);
    return set;
  }

  it("fills the operation with the session's values, the request's own values winning", async () => {
    const { apply } = await setUp();
    const filled = await apply.fill(merchant, VerifyRequest, {
      apiOperation: 'VERIFY',
      order: { reference: 'from-request' },
      session: { id: stored.id },
    });
    expect(filled.body).toMatchObject({
      order: { currency: 'USD', reference: 'from-request' },
      customer: { email: 'payer@example.com' },
    });
  });

  it('answers an expired session as expired and an unknown one as unknown (400 on session.id, told apart)', async () => {
    const { apply, advance } = await setUp();
    const unknown = await apply
      .fill(merchant, VerifyRequest, { session: { id: 'SESSION0002NOSUCHSESSIONNOSUCHSES' } })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(GatewayError);
    expect(unknown).toMatchObject({ code: 'INVALID_FIELD', field: 'session.id' });
    expect((unknown as GatewayError).explanation).toContain('must name a session of this merchant');

    advance(lifetime.ttlMs + 1);
    const expired = await apply
      .fill(merchant, VerifyRequest, { session: { id: stored.id } })
      .catch((e: unknown) => e);
    expect(expired).toMatchObject({ code: 'INVALID_FIELD', field: 'session.id' });
    expect((expired as GatewayError).explanation).toContain('expired');
  });

  it("refuses a session.version other than the session's current one (400 on session.version, spec error rule 1)", async () => {
    const { apply } = await setUp();
    await expect(
      apply.fill(merchant, VerifyRequest, { session: { id: stored.id, version: 'bbbbbbbbbb' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_FIELD',
      field: 'session.version',
    });
    await expect(
      apply.fill(merchant, VerifyRequest, { session: { id: stored.id, version: stored.version } }),
    ).resolves.toBeDefined();
  });

  it('passes the sealed card only to an operation that takes card details (not to CAPTURE), and takes no code there', async () => {
    const { apply } = await setUp();
    const capture = await apply.fill(merchant, CaptureRequest, {
      apiOperation: 'CAPTURE',
      session: { id: stored.id },
    });
    expect(capture.session).toEqual({ id: stored.id });
    expect(capture.securityCode).toBeUndefined();
    const verify = await apply.fill(merchant, VerifyRequest, {
      apiOperation: 'VERIFY',
      session: { id: stored.id },
    });
    expect(verify.session).toEqual({ id: stored.id, sealedCard: 'sealed-with-code' });
    expect(verify.securityCode?.session.card.sealed).toBe('sealed-with-code');
  });

  it("leaves the session's security code unused when the request gives its own", async () => {
    const { apply } = await setUp();
    const filled = await apply.fill(merchant, VerifyRequest, {
      apiOperation: 'VERIFY',
      session: { id: stored.id },
      sourceOfFunds: { provided: { card: { securityCode: '100' } } },
    });
    expect(filled.session).toEqual({ id: stored.id, sealedCard: 'sealed-with-code' });
    expect(filled.securityCode).toBeUndefined();
  });
});
