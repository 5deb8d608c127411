import { randomBytes } from 'node:crypto';
import { ApiPasswordPeppers } from '@gateway/crypto';
import { Client } from 'pg';
import { runAdminCli } from './admin-cli';

/**
 * The admin CLI's merchant commands against the run's real Postgres, as an operator reads them:
 * what each stores for the merchant named (and nothing for another), what it prints (a new
 * password once; never a stored hash or a sealed secret), and its exit code.
 */
describe('admin: merchant commands', () => {
  const pepper = 'admin-merchants-pepper-of-32-chars-at-least';
  const peppers = ApiPasswordPeppers.single(pepper);
  const env = (): NodeJS.ProcessEnv => ({
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    API_PASSWORD_PEPPER: pepper,
  });

  async function cli(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, env());
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  async function json(...args: string[]) {
    const result = await cli('--json', ...args);
    return { ...result, json: result.out ? JSON.parse(result.out) : undefined };
  }

  async function row(id: string) {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT mode, status, settings, password_hash, previous_password_hash, previous_password_expires_at FROM edge.merchants WHERE id = $1',
        [id],
      );
      return rows[0];
    } finally {
      await client.end();
    }
  }

  const newId = () => `ADMM${randomBytes(5).toString('hex').toUpperCase()}`;

  async function created(mode?: string) {
    const id = newId();
    const result = await json('create', '--id', id, '--name', 'Shop', ...(mode ? ['--mode', mode] : []));
    expect(result.code).toBe(0);
    return { id, password: result.json.apiPassword as string };
  }

  it('creates a TEST merchant unless LIVE is asked for, and prints its password once, which the stored hash verifies', async () => {
    const { id, password } = await created();
    expect(await row(id)).toMatchObject({ mode: 'TEST', status: 'ENABLED' });
    expect(peppers.check(password, (await row(id)).password_hash).matches).toBe(true);
    const live = await created('LIVE');
    expect(await row(live.id)).toMatchObject({ mode: 'LIVE' });
  });

  it('disables and enables the merchant named, and only it', async () => {
    const { id } = await created();
    const other = await created();
    expect(await json('disable', id)).toMatchObject({ code: 0, json: { id, status: 'DISABLED' } });
    expect(await row(id)).toMatchObject({ status: 'DISABLED' });
    expect(await row(other.id)).toMatchObject({ status: 'ENABLED' });
    expect(await json('enable', id)).toMatchObject({ code: 0, json: { id, status: 'ENABLED' } });
    expect(await row(id)).toMatchObject({ status: 'ENABLED' });
  });

  it('switches the mode asked for', async () => {
    const { id } = await created();
    expect(await json('mode', id, 'LIVE')).toMatchObject({ code: 0, json: { mode: 'LIVE' } });
    expect(await row(id)).toMatchObject({ mode: 'LIVE' });
    expect(await json('mode', id, 'TEST')).toMatchObject({ code: 0, json: { mode: 'TEST' } });
    expect(await row(id)).toMatchObject({ mode: 'TEST' });
  });

  it('rotates the password: the new one printed once and stored, the old one kept for the hours asked', async () => {
    const { id, password: old } = await created();
    const before = Date.now();
    const rotated = await json('rotate-password', id, '--keep-previous-hours', '2');
    expect(rotated.code).toBe(0);
    const password = rotated.json.apiPassword as string;
    const stored = await row(id);
    expect(peppers.check(password, stored.password_hash).matches).toBe(true);
    expect(peppers.check(old, stored.previous_password_hash).matches).toBe(true);
    const until = Date.parse(rotated.json.previousPasswordValidUntil);
    expect(stored.previous_password_expires_at.getTime()).toBe(until);
    expect(until).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1);
    expect(until).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);

    // The text form prints it too, once, with the username; --keep-previous-hours 0 revokes the old one.
    const text = await cli('rotate-password', id, '--keep-previous-hours', '0');
    expect(text.code).toBe(0);
    const newest = /API password: (\S+)/.exec(text.out)![1];
    expect(text.out).toContain(`API username: merchant.${id}`);
    const revoked = await row(id);
    expect(peppers.check(newest, revoked.password_hash).matches).toBe(true);
    expect(revoked).toMatchObject({ previous_password_hash: null, previous_password_expires_at: null });
  });

  it('shows and lists a merchant without its password hashes', async () => {
    const { id } = await created();
    await cli('rotate-password', id);
    const stored = await row(id);
    const shown = await json('show', id);
    expect(Object.keys(shown.json).sort()).toEqual([
      'createdAt',
      'id',
      'mode',
      'name',
      'previousPasswordValidUntil',
      'settings',
      'status',
      'updatedAt',
    ]);
    const listed = await json('list');
    for (const output of [shown.out, listed.out, (await cli('show', id)).out, (await cli('list')).out]) {
      expect(output).not.toContain(stored.password_hash);
      expect(output).not.toContain(stored.previous_password_hash);
    }
  });

  it('refuses a merchant that does not exist with exit code 1, saying so', async () => {
    for (const args of [
      ['show', 'NOSUCH'],
      ['disable', 'NOSUCH'],
      ['rotate-password', 'NOSUCH'],
      ['set', 'NOSUCH', 'privileges.excessiveRefund=true'],
    ]) {
      const result = await json(...args);
      expect(result).toMatchObject({ code: 1, out: '' });
      expect(JSON.parse(result.err)).toEqual({ error: 'No merchant NOSUCH.' });
    }
  });

  it('refuses an invalid merchant id at create with exit code 1: nothing stored', async () => {
    const result = await json('create', '--id', 'shop 1', '--name', 'Shop');
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toContain('must be 1 to 40 characters');
  });

  it.each([
    '__proto__.polluted=true',
    'constructor.prototype.polluted=true',
    'privileges.__proto__.polluted=true',
  ])(
    'refuses create --set %s as set refuses it (exit code 1, nothing stored), reaching no object prototype',
    async (assignment) => {
      const id = newId();
      try {
        const result = await json('create', '--id', id, '--name', 'Shop', '--set', assignment);
        expect(result).toMatchObject({ code: 1, out: '' });
        expect(JSON.parse(result.err)).toEqual({
          error: `Invalid setting name '${assignment.split('=')[0]}'.`,
        });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(await row(id)).toBeUndefined();
      } finally {
        delete (Object.prototype as Record<string, unknown>).polluted;
      }
    },
  );
});
