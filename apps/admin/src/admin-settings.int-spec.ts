import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runAdminCli } from './admin-cli';

/** `admin create --set` and `admin set`: how a value is read, and which settings are refused. */
describe('admin: settings', () => {
  const env = (): NodeJS.ProcessEnv => ({ DATABASE_URL: process.env.TEST_DATABASE_URL, API_PASSWORD_PEPPER: 'admin-settings-pepper-of-32-chars-at-least' });

  async function cli(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(['--json', ...args], { out: (t) => out.push(t), err: (t) => err.push(t) }, env());
    return { code, json: out.length > 0 ? JSON.parse(out.join('\n')) : undefined, err: err.join('\n') };
  }

  async function sql(text: string, values: unknown[]) {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  const newId = () => `ADS${randomBytes(5).toString('hex').toUpperCase()}`;
  const repositoryId = () => String(100_000_000_000 + (randomBytes(4).readUInt32BE() % 800_000_000_000));

  describe('a token repository id of digits', () => {
    it('is kept as text by create --set and set, leading zeros included', async () => {
      const id = newId();
      const repository = repositoryId();
      const created = await cli('create', '--id', id, '--name', 'Digits', '--set', `tokenRepository.id=${repository}`);
      expect(created).toMatchObject({ code: 0, json: { settings: { tokenRepository: { id: repository } } } });

      expect(await cli('set', id, 'tokenRepository.id=000123')).toMatchObject({ code: 0, json: { settings: { tokenRepository: { id: '000123' } } } });
      // Quoted as JSON text, as the shell passes '"..."': the same id.
      expect(await cli('set', id, 'tokenRepository.id="000124"')).toMatchObject({ code: 0, json: { settings: { tokenRepository: { id: '000124' } } } });
      const [row] = await sql('SELECT settings FROM edge.merchants WHERE id = $1', [id]);
      expect(row.settings.tokenRepository.id).toBe('000124');
    });

    it('still reads numbers, booleans and lists as JSON where the setting is one', async () => {
      const id = (await cli('create', '--id', newId(), '--name', 'Typed', '--set', 'testAcquirer.latencyMs=250')).json.id as string;
      const set = await cli('set', id, 'privileges.unmask=true', 'rateLimitPerSecond=20', 'transactionFiltering.avsResponseCodeRules=[{"avsResponseCode":"NO_MATCH","action":"REJECT"}]');
      expect(set).toMatchObject({
        code: 0,
        json: {
          settings: {
            testAcquirer: { latencyMs: 250 },
            privileges: { unmask: true },
            rateLimitPerSecond: 20,
            transactionFiltering: { avsResponseCodeRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }] },
          },
        },
      });
      expect(await cli('set', id, 'testAcquirer.latencyMs=slow')).toMatchObject({ code: 1, err: expect.stringContaining('latencyMs') });
    });
  });

  describe('AVS rules', () => {
    it('refuses a rule on anything but one of the spec’s AVS gateway codes: it would never fire', async () => {
      const id = (await cli('create', '--id', newId(), '--name', 'Avs')).json.id as string;
      const refused = await cli('set', id, 'transactionFiltering.avsResponseCodeRules=[{"avsResponseCode":"no_match","action":"REJECT"}]');
      expect(refused).toMatchObject({ code: 1, err: expect.stringContaining('avsResponseCode must be one of the following values') });
      expect((await cli('show', id)).json.settings.transactionFiltering.avsResponseCodeRules).toEqual([]);
    });

    it('refuses two rules for one code, as a request naming a code twice is refused', async () => {
      const created = await cli(
        'create',
        '--id',
        newId(),
        '--name',
        'Avs twice',
        '--set',
        'transactionFiltering.avsResponseCodeRules=[{"avsResponseCode":"NO_MATCH","action":"REJECT"},{"avsResponseCode":"NO_MATCH","action":"NO_ACTION"}]',
      );
      expect(created).toMatchObject({ code: 1, err: expect.stringContaining('only one rule may be given for each AVS response code') });
    });

    it('lets a profile stored with rules that never applied be changed, leaving those rules out', async () => {
      const id = (await cli('create', '--id', newId(), '--name', 'Stored before the check')).json.id as string;
      const stored = [
        { avsResponseCode: 'no_match', action: 'REJECT' },
        { avsResponseCode: 'NO_MATCH', action: 'REVIEW' },
        { avsResponseCode: 'NO_MATCH', action: 'REJECT' },
      ];
      await sql(`UPDATE edge.merchants SET settings = jsonb_set(settings::jsonb, '{transactionFiltering,avsResponseCodeRules}', $2::jsonb) WHERE id = $1`, [
        id,
        JSON.stringify(stored),
      ]);
      expect((await cli('show', id)).json.settings.transactionFiltering.avsResponseCodeRules).toEqual(stored);

      const changed = await cli('set', id, 'privileges.excessiveRefund=true');
      expect(changed).toMatchObject({ code: 0, json: { settings: { privileges: { excessiveRefund: true } } } });
      expect(changed.json.settings.transactionFiltering.avsResponseCodeRules).toEqual([{ avsResponseCode: 'NO_MATCH', action: 'REVIEW' }]);
    });
  });
});
