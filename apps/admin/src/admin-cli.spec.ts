import { runAdminCli } from './admin-cli';

/**
 * Usage mistakes are refused before anything is opened or changed: this environment names a
 * database nobody listens on, so a command that got as far as the database would fail otherwise.
 */
describe('admin: usage', () => {
  const env: NodeJS.ProcessEnv = { DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none', API_PASSWORD_PEPPER: 'usage-test-pepper-of-32-characters-at-least' };

  async function cli(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it.each([
    [['rotate-password', 'SHOP1', '--keep-previous-hours', ''], '--keep-previous-hours'],
    [['rotate-password', 'SHOP1', '--keep-previous-hours', ' '], '--keep-previous-hours'],
    [['rotate-password', 'SHOP1', '--keep-previous-hours', '0x18'], '--keep-previous-hours'],
    [['rotate-notification-secret', 'SHOP1', '--keep-previous-hours', '1e3'], '--keep-previous-hours'],
    [['rotate-password', 'SHOP1', '--keep-previous-hours', '721'], '--keep-previous-hours'],
    [['disable', 'SHOP1', 'SHOP2'], "disable takes 1 argument (<merchantId>), not 2: 'SHOP2'"],
    [['create', '--name', 'Shop', 'SHOP1'], "create takes no argument"],
    [['list', 'SHOP1'], 'list takes no argument'],
    [['mode', 'SHOP1'], 'mode needs <merchantId> TEST|LIVE'],
    [['show'], 'show needs <merchantId>'],
    [['create', '--name', 'Shop', '--keep-previous-hours', '0'], 'create does not take --keep-previous-hours'],
    [['rotate-password', 'SHOP1', '--name', 'Other'], 'rotate-password does not take --name'],
    [['rotate-pasword', 'SHOP1'], "unknown command 'rotate-pasword'"],
    [['rotate-password', 'SHOP1', '--keep-previous-hour', '2'], "Unknown option '--keep-previous-hour'"],
    [['rotate-password', 'SHOP1', '--keep-previous-hours'], "--keep-previous-hours <value>' argument missing"],
    // Bad values the line alone shows: exit code 2 as --help says, not 1 once the database is open.
    [['create', '--name', 'Shop', '--mode', 'live'], "--mode must be TEST or LIVE, not 'live'"],
    [['create', '--mode', 'LIVE'], 'create needs --name <name>'],
    [['create', '--name', '', '--mode', 'LIVE'], 'create needs --name <name>'],
    [['mode', 'SHOP1', 'Live'], "mode must be TEST or LIVE, not 'Live'"],
    [['add-certificate', 'SHOP1', 'shop.pem', '--by', 'issuer'], "--by must be fingerprint or subject, not 'issuer'"],
    [['--standalone', 'provision-database'], 'provision-database does not take --standalone'],
  ])('refuses %j with a usage error (exit 2) naming the problem, before opening the database', async (args, message) => {
    const result = await cli(...args);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toContain(message);
    expect(result.err).toContain('--help');
  });

  it('answers a usage error as JSON with --json', async () => {
    const result = await cli('--json', 'enable');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.err)).toEqual({ error: expect.stringContaining('enable needs <merchantId>') });
  });

  it('prints the usage for --help and for no command', async () => {
    expect(await cli('--help')).toMatchObject({ code: 0, out: expect.stringContaining('Usage: admin') });
    expect(await cli()).toMatchObject({ code: 2, out: expect.stringContaining('Usage: admin') });
  });
});
