import { randomBytes } from 'node:crypto';
import { notificationSecretContext } from '@gateway/contracts';
import { SealingKeyRing } from '@gateway/crypto';
import { Client } from 'pg';
import { runAdminCli } from './admin-cli';

/**
 * The merchant's webhook notification secret through the admin CLI, against the run's real
 * Postgres: issued when notifications are enabled, shown once, stored only sealed under
 * WEBHOOK_SECRET_KEYS (which order-transaction's dispatcher opens it with), rotated on demand.
 */
describe('admin: notification secrets', () => {
  const keys = `w1:${randomBytes(32).toString('base64')}`;
  const ring = SealingKeyRing.parse(keys, 'KEYS');
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    API_PASSWORD_PEPPER: 'admin-int-test-pepper-0123456789abcdef',
    WEBHOOK_SECRET_KEYS: keys,
    ...extra,
  });

  async function cli(args: string[], environment = env()) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(['--json', ...args], { out: (t) => out.push(t), err: (t) => err.push(t) }, environment);
    return { code, json: out.length ? JSON.parse(out.join('\n')) : undefined, err: err.join('\n') };
  }

  async function storedSettings(id: string) {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT settings FROM edge.merchants WHERE id = $1', [id]);
      return rows[0].settings;
    } finally {
      await client.end();
    }
  }

  const newId = () => `ADM${randomBytes(5).toString('hex').toUpperCase()}`;

  it('issues a secret when notifications are enabled at creation, shows it once and stores it only sealed', async () => {
    const id = newId();
    const created = await cli(['create', '--id', id, '--name', 'Shop', '--set', 'notifications.enabled=true']);
    expect(created.code).toBe(0);
    const secret: string = created.json.notificationSecret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.json.settings.notifications).toEqual({ enabled: true, secret: { issued: true } });

    const stored = await storedSettings(id);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(ring.open(stored.notifications.secret.current, notificationSecretContext(id)).reveal()).toBe(secret);
    expect(() => ring.open(stored.notifications.secret.current, notificationSecretContext('ANOTHER'))).toThrow();

    const shown = await cli(['show', id]);
    expect(JSON.stringify(shown.json)).not.toContain(stored.notifications.secret.current);
    expect(shown.json.notificationSecret).toBeUndefined();
  });

  it('issues one when notifications are switched on later, and none for a merchant without notifications', async () => {
    const id = newId();
    expect((await cli(['create', '--id', id, '--name', 'Shop'])).json.notificationSecret).toBeUndefined();
    const enabled = await cli(['set', id, 'notifications.enabled=true']);
    expect(enabled.json.notificationSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Already has one: changing other settings issues no new secret.
    expect((await cli(['set', id, 'privileges.excessiveRefund=true'])).json.notificationSecret).toBeUndefined();
  });

  it('rotates the secret, keeping the previous one signing for the given hours', async () => {
    const id = newId();
    const first = (await cli(['create', '--id', id, '--name', 'Shop', '--set', 'notifications.enabled=true'])).json.notificationSecret;
    const rotated = await cli(['rotate-notification-secret', id, '--keep-previous-hours', '2']);
    expect(rotated.code).toBe(0);
    expect(rotated.json.notificationSecret).not.toBe(first);

    const { secret } = (await storedSettings(id)).notifications;
    expect(ring.open(secret.current, notificationSecretContext(id)).reveal()).toBe(rotated.json.notificationSecret);
    expect(ring.open(secret.previous, notificationSecretContext(id)).reveal()).toBe(first);
    const hoursLeft = (Date.parse(secret.previousValidUntil) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(1.9);
    expect(hoursLeft).toBeLessThanOrEqual(2);

    await cli(['rotate-notification-secret', id, '--keep-previous-hours', '0']);
    expect((await storedSettings(id)).notifications.secret.previous).toBeUndefined();
  });

  it('keeps the issued secret, and a rotation in progress, when set writes the whole notifications object; refuses a secret set as a setting', async () => {
    const id = newId();
    const first = (await cli(['create', '--id', id, '--name', 'Shop', '--set', 'notifications.enabled=true'])).json.notificationSecret;
    const rotated = (await cli(['rotate-notification-secret', id, '--keep-previous-hours', '2'])).json.notificationSecret;
    const before = (await storedSettings(id)).notifications.secret;

    // Before: the secret was dropped and a new one issued at once, the previous one's window ended.
    const set = await cli(['set', id, 'notifications={"enabled":true}']);
    expect(set.code).toBe(0);
    expect(set.json.notificationSecret).toBeUndefined();
    expect((await storedSettings(id)).notifications.secret).toEqual(before);
    expect(ring.open(before.current, notificationSecretContext(id)).reveal()).toBe(rotated);
    expect(ring.open(before.previous, notificationSecretContext(id)).reveal()).toBe(first);

    for (const change of ['notifications.secret=null', 'notifications.secret.previous=null', 'notifications={"enabled":true,"secret":null}']) {
      expect(await cli(['set', id, change])).toMatchObject({ code: 1, err: expect.stringContaining('rotate-notification-secret') });
    }
    expect((await storedSettings(id)).notifications.secret).toEqual(before);
  });

  it('re-seals every secret under a new first key of WEBHOOK_SECRET_KEYS, unchanged for the merchant', async () => {
    const id = newId();
    const issued = (await cli(['create', '--id', id, '--name', 'Shop', '--set', 'notifications.enabled=true'])).json.notificationSecret;
    const newKeys = `w2:${randomBytes(32).toString('base64')},${keys}`;
    const result = await cli(['reseal-notification-secrets'], env({ WEBHOOK_SECRET_KEYS: newKeys }));
    expect(result.json.resealed).toContain(id);

    const sealed = (await storedSettings(id)).notifications.secret.current;
    expect(SealingKeyRing.keyIdOf(sealed)).toBe('w2');
    const onlyNewKey = SealingKeyRing.parse(newKeys.split(',')[0], 'KEYS');
    expect(onlyNewKey.open(sealed, notificationSecretContext(id)).reveal()).toBe(issued);
    expect((await cli(['reseal-notification-secrets'], env({ WEBHOOK_SECRET_KEYS: newKeys }))).json.resealed).not.toContain(id);
  });

  it('re-seals the previous secret of a rotation in progress too, so the old key can go while it still signs', async () => {
    const id = newId();
    const first = (await cli(['create', '--id', id, '--name', 'Shop', '--set', 'notifications.enabled=true'])).json.notificationSecret;
    const second = (await cli(['rotate-notification-secret', id, '--keep-previous-hours', '2'])).json.notificationSecret;
    const newKeys = `w2:${randomBytes(32).toString('base64')},${keys}`;
    expect((await cli(['reseal-notification-secrets'], env({ WEBHOOK_SECRET_KEYS: newKeys }))).json.resealed).toContain(id);

    const { secret } = (await storedSettings(id)).notifications;
    const onlyNewKey = SealingKeyRing.parse(newKeys.split(',')[0], 'KEYS');
    expect(onlyNewKey.open(secret.current, notificationSecretContext(id)).reveal()).toBe(second);
    expect(onlyNewKey.open(secret.previous, notificationSecretContext(id)).reveal()).toBe(first);
  });

  it('re-seals the others when a merchant’s secret opens under no configured key, naming that merchant (exit code 0)', async () => {
    const lost = newId();
    const lostKeys = `w9:${randomBytes(32).toString('base64')}`;
    expect((await cli(['create', '--id', lost, '--name', 'Shop', '--set', 'notifications.enabled=true'], env({ WEBHOOK_SECRET_KEYS: lostKeys }))).code).toBe(0);
    const kept = newId();
    expect((await cli(['create', '--id', kept, '--name', 'Shop', '--set', 'notifications.enabled=true'])).code).toBe(0);
    const before = await storedSettings(lost);

    const result = await cli(['reseal-notification-secrets'], env({ WEBHOOK_SECRET_KEYS: `w3:${randomBytes(32).toString('base64')},${keys}` }));
    expect(result.code).toBe(0);
    expect(result.json.unreadable).toContain(lost);
    expect(result.json.resealed).toContain(kept);
    expect(result.json.resealed).not.toContain(lost);
    expect(await storedSettings(lost)).toEqual(before);
  });

  it('refuses to enable notifications without WEBHOOK_SECRET_KEYS, saying why', async () => {
    const id = newId();
    const result = await cli(['create', '--id', id, '--name', 'Shop', '--set', 'notifications.enabled=true'], env({ WEBHOOK_SECRET_KEYS: '' }));
    expect(result.code).toBe(1);
    expect(result.err).toContain('WEBHOOK_SECRET_KEYS');
    expect((await cli(['show', id])).code).toBe(1);
  });
});
