import { randomBytes } from 'node:crypto';
import { dropServiceRoles, scramSha256Verifier, SERVICE_DATABASES } from '@gateway/platform';
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

  describe('passwords', () => {
    // Quotes, backslashes (E'' strings, standard_conforming_strings), a dollar quote, '%' and
    // characters SASLprep changes (a ligature NFKC splits, a non-ASCII space).
    const tricky = [`it's\\'; DROP ROLE x; --`, `back\\slash\\`, '$$dollar$$ "double" %41', `\uFB01x\u00A0y \u00E9`];
    const scratch = `gw_${suffix}_scratch`;

    afterAll(async () => {
      await dropServiceRoles(new URL('/postgres', adminUrl).toString(), [scratch]);
    });

    async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    }

    it('computes the verifier Postgres computes from the clear password', async () => {
      for (const password of tricky) {
        // Postgres hashes this one itself (the spec's own role; the literal quoted by the server).
        const stored = await admin(async (client) => {
          const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [scratch])).rowCount;
          const { rows } = await client.query("SELECT format('%s ROLE %I PASSWORD %L', $1::text, $2::text, $3::text) AS sql", [
            exists ? 'ALTER' : 'CREATE',
            scratch,
            password,
          ]);
          await client.query(rows[0].sql);
          return (await client.query('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [scratch])).rows[0].rolpassword as string;
        });
        const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored)!;
        expect(scramSha256Verifier(password, Buffer.from(salt, 'base64'), Number(iterations))).toBe(stored);
      }
    });

    it("stores each role's verifier of its URL's password, which never reaches the server, standard_conforming_strings on or off", async () => {
      for (const conforming of ['on', 'off']) {
        const env: Record<string, string> = {};
        // A random tail per password: found in no statement or value sent, however quoted.
        const tails = SERVICE_DATABASES.map(() => randomBytes(5).toString('hex'));
        const passwords = tails.map((tail, i) => `${tricky[i % tricky.length]}${tail}`);
        SERVICE_DATABASES.forEach((s, i) => {
          const url = new URL(adminUrl);
          url.username = roles[i];
          url.password = encodeURIComponent(passwords[i]);
          env[s.urlVariable] = url.toString();
        });
        const sent: string[] = [];
        const original = Client.prototype.query;
        const query = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
          sent.push(typeof args[0] === 'string' ? args[0] : JSON.stringify(args[0]), ...(Array.isArray(args[1]) ? args[1].map(String) : []));
          return (original as (...a: unknown[]) => unknown).apply(this, args);
        } as never);
        let result: Awaited<ReturnType<typeof cli>>;
        try {
          const admin = new URL(adminUrl);
          admin.searchParams.set('options', `-c standard_conforming_strings=${conforming}`);
          result = await cli(['provision-database'], { DATABASE_ADMIN_URL: admin.toString(), ...env });
        } finally {
          query.mockRestore();
        }
        expect(result).toMatchObject({ code: 0, err: '' });
        expect(sent.some((text) => text.includes('ALTER ROLE'))).toBe(true);
        expect(sent.filter((text) => tails.some((tail) => text.includes(tail)))).toEqual([]);
        expect(tails.some((tail) => result.out.includes(tail))).toBe(false);
        for (const [i, password] of passwords.entries()) {
          // The stored verifier is this password's (the spec above: as Postgres would compute it).
          const stored = await storedPassword(roles[i]);
          const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored)!;
          expect(scramSha256Verifier(password, Buffer.from(salt, 'base64'), Number(iterations))).toBe(stored);
        }
      }
    });
  });

  it('refuses two services sharing one role, naming the variable at fault for a missing one', async () => {
    const shared = await cli(['provision-database'], { ...env(), VERIFICATION_DATABASE_URL: urls.EDGE_DATABASE_URL });
    expect(shared).toMatchObject({ code: 1, err: expect.stringContaining('role of its own') });
    const missing = await cli(['provision-database'], { ...env(), VERIFICATION_DATABASE_URL: undefined });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('VERIFICATION_DATABASE_URL');
  });
});
