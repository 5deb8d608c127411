import { randomBytes } from 'node:crypto';
import { dropServiceRoles, SERVICE_DATABASES } from '@gateway/platform';
import { createDatabase, dropDatabase } from '@gateway/testing';
import { Client } from 'pg';
import { runAdminCli } from './admin-cli';

/**
 * The migration Job's first step against a real Postgres: every service gets a login role of
 * its own that owns its schema, and cannot reach another service's schema.
 */
describe('admin provision-database', () => {
  const database = `${process.env.TEST_DATABASE}_provision`;
  const suffix = randomBytes(3).toString('hex');
  let adminUrl: string;
  const urls: Record<string, string> = {};
  const roles = SERVICE_DATABASES.map((s) => `gw_${suffix}_${s.schema}`);

  const withUser = (base: string, user: string, password: string) => {
    const url = new URL(base);
    url.username = user;
    url.password = password;
    return url.toString();
  };

  const env = (): NodeJS.ProcessEnv => ({ DATABASE_ADMIN_URL: adminUrl, ...urls });

  async function cli(args: string[], environment = env()) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, environment);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  async function asRole(url: string, sql: string): Promise<void> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  async function storedPassword(role: string): Promise<string> {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [role]);
      return rows[0].rolpassword;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    adminUrl = await createDatabase(database);
    SERVICE_DATABASES.forEach((s, i) => {
      // A password with characters that need URL encoding, as generated ones often have.
      urls[s.urlVariable] = withUser(adminUrl, roles[i], `p@ss/${randomBytes(6).toString('hex')}`);
    });
  });

  afterAll(async () => {
    await dropDatabase(database);
    await dropServiceRoles(new URL('/postgres', adminUrl).toString(), roles);
  });

  it("creates each service's role owning its schema, and nothing else", async () => {
    const result = await cli(['--json', 'provision-database']);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(result.out)).toEqual(SERVICE_DATABASES.map((s, i) => ({ app: s.app, schema: s.schema, role: roles[i] })));
    expect(result.out).not.toContain('p@ss');

    const vault = urls.TOKEN_VAULT_DATABASE_URL;
    await asRole(vault, 'CREATE TABLE token_vault.probe (id int)');
    await expect(asRole(vault, 'CREATE TABLE edge.probe (id int)')).rejects.toThrow(/permission denied/);
    await expect(asRole(urls.EDGE_DATABASE_URL, 'SELECT * FROM token_vault.probe')).rejects.toThrow(/permission denied/);
  });

  it('can run again every release: existing roles get the passwords of the current URLs', async () => {
    const before = await storedPassword(roles[1]);
    const rotated = withUser(adminUrl, roles[1], `new-${randomBytes(6).toString('hex')}`);
    const result = await cli(['provision-database'], { ...env(), TOKEN_VAULT_DATABASE_URL: rotated });
    expect(result.code).toBe(0);
    // The test server trusts local logins, so compare the stored verifier instead of logging in.
    expect(await storedPassword(roles[1])).not.toEqual(before);
    await asRole(rotated, 'SELECT 1 FROM token_vault.probe');
  });

  it('refuses two services sharing one role, naming the variable at fault for a missing one', async () => {
    const shared = await cli(['provision-database'], { ...env(), VERIFICATION_DATABASE_URL: urls.EDGE_DATABASE_URL });
    expect(shared).toMatchObject({ code: 1, err: expect.stringContaining('role of its own') });
    const missing = await cli(['provision-database'], { ...env(), VERIFICATION_DATABASE_URL: undefined });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('VERIFICATION_DATABASE_URL');
  });
});
