import { randomBytes } from 'node:crypto';
import { runAdminCli } from './admin-cli';

/** `admin password-peppers`: which merchants still hold a hash under an old pepper. */
describe('admin: password-peppers', () => {
  const legacy = randomBytes(24).toString('hex');
  const p2 = `p2:${randomBytes(24).toString('hex')}`;

  async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, { DATABASE_URL: process.env.TEST_DATABASE_URL, ...env });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('counts a merchant hashed under the legacy pepper as not re-hashed, and creates new ones under the first pepper', async () => {
    const old = `APP${randomBytes(5).toString('hex').toUpperCase()}`;
    const fresh = `APP${randomBytes(5).toString('hex').toUpperCase()}`;
    expect((await cli({ API_PASSWORD_PEPPER: legacy }, 'create', '--id', old, '--name', 'Old')).code).toBe(0);
    const rotating = { API_PASSWORD_PEPPER: legacy, API_PASSWORD_PEPPERS: p2 };
    expect((await cli(rotating, 'create', '--id', fresh, '--name', 'Fresh')).code).toBe(0);

    const census = await cli(rotating, '--json', 'password-peppers');
    expect(census.code).toBe(0);
    const json = JSON.parse(census.out);
    expect(json.currentId).toBe('p2');
    expect(json.notRehashed).toContain(old);
    expect(json.notRehashed).not.toContain(fresh);
    expect(json.peppers.find((p: { id: string }) => p.id === 'legacy')).toMatchObject({ configured: true, current: false, passwords: expect.arrayContaining([old]) });
    expect(json.peppers.find((p: { id: string }) => p.id === 'p2').passwords).toContain(fresh);

    const text = await cli(rotating, 'password-peppers');
    expect(text.out).toMatch(/legacy \(verify only\): \d+ merchant\(s\)/);
    expect(text.out).toMatch(/still hold a hash under a pepper other than p2/);
    expect(text.out).not.toContain(legacy);
  });

  it("leaves a merchant given a new password listed while its previous one is kept, so the verdict names --keep-previous-hours 0", async () => {
    // The guide's step 3: merchants that never call get a new password instead of being waited for.
    const idle = `APP${randomBytes(5).toString('hex').toUpperCase()}`;
    expect((await cli({ API_PASSWORD_PEPPER: legacy }, 'create', '--id', idle, '--name', 'Idle')).code).toBe(0);
    const rotating = { API_PASSWORD_PEPPER: legacy, API_PASSWORD_PEPPERS: p2 };
    const notRehashed = async () => JSON.parse((await cli(rotating, '--json', 'password-peppers')).out).notRehashed as string[];

    expect((await cli(rotating, 'rotate-password', idle)).code).toBe(0);
    expect(await notRehashed()).toContain(idle);
    expect((await cli(rotating, 'password-peppers')).out).toContain(`rotate-password <id> --keep-previous-hours 0`);

    expect((await cli(rotating, 'rotate-password', idle, '--keep-previous-hours', '0')).code).toBe(0);
    expect(await notRehashed()).not.toContain(idle);
  });
});
