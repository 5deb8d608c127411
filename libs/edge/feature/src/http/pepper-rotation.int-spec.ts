import { randomBytes } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/**
 * Rotating API_PASSWORD_PEPPERS without a flag day (docs/decisions/api-passwords-as-keyed-hashes.md,
 * amendment 2026-11-26 (2)): a merchant whose hash names the old pepper authenticates once the
 * edge is restarted with the new pepper first, is re-hashed under it then, and keeps
 * authenticating once the old pepper is dropped. Real edge, real database.
 */
describe('API password pepper rotation', () => {
  const p1 = `p1:${randomBytes(24).toString('hex')}`;
  const p2 = `p2:${randomBytes(24).toString('hex')}`;
  const legacy = randomBytes(24).toString('hex');
  let edge: EdgeTestApp | undefined;

  /** The edge restarted with these peppers (and no API_PASSWORD_PEPPER unless `legacy` says). */
  async function restartWith(peppers: string, legacyPepper = ''): Promise<EdgeTestApp> {
    await edge?.close();
    edge = await startEdgeTestApp({ env: { API_PASSWORD_PEPPERS: peppers, API_PASSWORD_PEPPER: legacyPepper } });
    return edge;
  }

  afterAll(async () => {
    await edge?.close();
  });

  /** 400 (the empty body) once authenticated, 401 if the password is refused. */
  async function statusFor(app: EdgeTestApp, merchant: TestMerchantCredentials): Promise<number> {
    const response = await app.fastify.inject({
      method: 'PUT',
      url: `/api/rest/version/100/merchant/${merchant.id}/order/o-1/transaction/t-1`,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: '{}',
    });
    return response.statusCode;
  }

  async function storedHash(app: EdgeTestApp, merchantId: string): Promise<string> {
    const dataSource = app.running.app.get<DataSource>(getDataSourceToken('edge') as string);
    const [row] = await dataSource.query('SELECT password_hash FROM edge.merchants WHERE id = $1', [merchantId]);
    return row.password_hash;
  }

  it('authenticates a merchant hashed under p1 with p2,p1, re-hashes it under p2, and still authenticates with p2 alone', async () => {
    const merchant = await (await restartWith(p1)).createMerchant();
    expect(await storedHash(edge!, merchant.id)).toMatch(/^h2\$p1\$/);

    const rotating = await restartWith(`${p2},${p1}`);
    // Counted as not yet re-hashed by what `admin password-peppers` reports.
    const before = await rotating.merchants.pepperCensus();
    expect(before.currentId).toBe('p2');
    expect(before.notRehashed).toContain(merchant.id);
    expect(before.peppers.find((p) => p.id === 'p1')?.passwords).toContain(merchant.id);

    expect(await statusFor(rotating, merchant)).toBe(400);
    const rehashed = await storedHash(rotating, merchant.id);
    expect(rehashed).toMatch(/^h2\$p2\$/);
    // Once: the next authentication finds the hash current and leaves it as it is.
    expect(await statusFor(rotating, merchant)).toBe(400);
    expect(await storedHash(rotating, merchant.id)).toBe(rehashed);
    const after = await rotating.merchants.pepperCensus();
    expect(after.notRehashed).not.toContain(merchant.id);
    expect(after.peppers.find((p) => p.id === 'p2')?.passwords).toContain(merchant.id);

    const rotated = await restartWith(p2);
    expect(await statusFor(rotated, merchant)).toBe(400);
    expect(await statusFor(rotated, { ...merchant, authorization: `Basic ${Buffer.from(`merchant.${merchant.id}:${merchant.password}x`).toString('base64')}` })).toBe(401);
  });

  it('moves a merchant hashed under API_PASSWORD_PEPPER (h1, from before peppers had ids) to the first pepper of the list', async () => {
    const merchant = await (await restartWith('', legacy)).createMerchant();
    expect(await storedHash(edge!, merchant.id)).toMatch(/^h1\$/);

    const rotating = await restartWith(p2, legacy);
    expect((await rotating.merchants.pepperCensus()).peppers.find((p) => p.id === 'legacy')?.passwords).toContain(merchant.id);
    expect(await statusFor(rotating, merchant)).toBe(400);
    expect(await storedHash(rotating, merchant.id)).toMatch(/^h2\$p2\$/);

    expect(await statusFor(await restartWith(p2), merchant)).toBe(400);
  });

  it('refuses a merchant still hashed under a pepper dropped too early (what the census warns about)', async () => {
    const merchant = await (await restartWith(p1)).createMerchant();
    const dropped = await restartWith(p2);
    const census = await dropped.merchants.pepperCensus();
    expect(census.peppers.find((p) => p.id === 'p1')).toMatchObject({ configured: false });
    expect(census.notRehashed).toContain(merchant.id);
    expect(await statusFor(dropped, merchant)).toBe(401);
  });
});
