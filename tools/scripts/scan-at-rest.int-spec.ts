import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { createDatabase, dropDatabase, newRunId, TEST_CARD, TEST_CARD_UNKNOWN_BIN, testInfra } from '@gateway/testing';

/**
 * The at-rest scan (tools/scripts/scan-at-rest.mjs) finds what is planted in a database schema,
 * a Redis key or a data folder the run recorded, passes when all is clean, looks nowhere else,
 * and removes what it scanned when asked to.
 */

const SCRIPT = path.join(__dirname, 'scan-at-rest.mjs');
const database = `${process.env.TEST_DATABASE ?? `gw_int_${newRunId()}`}_scan`;
const otherDatabase = `${database}_other`;
const redisPrefix = `${process.env.TEST_REDIS_PREFIX ?? `test:${newRunId()}:`}scan:`;
const otherPrefix = `${process.env.TEST_REDIS_PREFIX ?? `test:${newRunId()}:`}scan-other:`;
const SECRET = randomBytes(24).toString('base64');
let work: string;
let db: Client;
let redis: Redis;

interface ScanResult {
  code: number;
  out: string;
}

function scan(...args: string[]): Promise<ScanResult> {
  return new Promise((resolve) => {
    // The child records nothing into this run's manifest: it gets its own.
    const env = { ...process.env, TEST_AT_REST_MANIFEST: '' };
    execFile(
      process.execPath,
      [SCRIPT, '--manifest', path.join(work, 'manifest.txt'), '--secrets', path.join(work, 'secrets'), ...args],
      { env, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'scan-at-rest-'));
  mkdirSync(path.join(work, 'secrets'));
  writeFileSync(path.join(work, 'secrets', 'issued.txt'), `${SECRET}\nshort\n`);
  mkdirSync(path.join(work, 'standalone'));
  const url = await createDatabase(database);
  await createDatabase(otherDatabase);
  db = new Client({ connectionString: url });
  // The cleanup test drops the database under this connection.
  db.on('error', () => undefined);
  await db.connect();
  await db.query('CREATE SCHEMA planted');
  await db.query('CREATE TABLE planted.cards (id serial, masked text, doc jsonb, sealed bytea)');
  // What the gateway legitimately keeps: masked numbers, ciphertext, three-digit numbers in ids.
  await db.query("INSERT INTO planted.cards (masked, doc, sealed) VALUES ('512345xxxxxx0008', $1, $2)", [
    { card: { number: '512345xxxxxx0008' }, securityCodePresent: true, orderId: 'order-100', amount: '101.00' },
    randomBytes(64),
  ]);
  redis = new Redis(testInfra.redisUrl);
  await redis.set(`${redisPrefix}session:1`, JSON.stringify({ card: { number: '512345xxxxxx0008' }, sealed: randomBytes(32).toString('base64') }));
  writeFileSync(path.join(work, 'standalone', 'clean.dat'), randomBytes(4096));
  writeFileSync(
    path.join(work, 'manifest.txt'),
    [`database ${database}`, `database ${database}_never_created`, `redis ${redisPrefix}`, `dir ${path.join(work, 'standalone')}`, ''].join('\n'),
  );
}, 30_000);

afterAll(async () => {
  await db?.end().catch(() => undefined);
  for (const prefix of [redisPrefix, otherPrefix]) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis?.disconnect();
  await dropDatabase(database);
  await dropDatabase(otherDatabase);
  rmSync(work, { recursive: true, force: true });
});

describe('the at-rest scan', () => {
  it('passes a run whose data holds only masked numbers and ciphertext, and says what it scanned', async () => {
    // Card data in clear in what another run (or helper) owns is not this run's to report.
    const other = new Client({ connectionString: new URL(`/${otherDatabase}`, testInfra.pgAdminUrl).toString() });
    await other.connect();
    await other.query(`CREATE TABLE leak AS SELECT '${TEST_CARD}'::text AS number`);
    await other.end();
    await redis.set(`${otherPrefix}leak`, TEST_CARD);

    const result = await scan();
    expect(result).toMatchObject({ code: 0 });
    expect(result.out).toMatch(/at-rest scan: 2 databases \(1 rows\), 1 Redis prefixes \(1 keys\), 1 folders \(1 files\).*none found/);
  });

  it.each<[string, string, () => Promise<unknown>]>([
    ['a card number in a text column', `postgres ${database} planted.cards: test card number ending 0008`, () => db.query(`INSERT INTO planted.cards (masked) VALUES ('${TEST_CARD}')`)],
    [
      'a card number inside JSON',
      `postgres ${database} planted.cards: test card number ending 0007`,
      () => db.query('INSERT INTO planted.cards (doc) VALUES ($1)', [{ card: { number: TEST_CARD_UNKNOWN_BIN } }]),
    ],
    [
      'a security code beside its field name',
      `postgres ${database} planted.cards: a security code beside its field name`,
      () => db.query('INSERT INTO planted.cards (doc) VALUES ($1)', [{ card: { securityCode: '100' } }]),
    ],
    [
      'an issued secret in a bytea column',
      `postgres ${database} planted.cards: issued secret #1`,
      () => db.query('INSERT INTO planted.cards (sealed) VALUES ($1)', [Buffer.from(`key=${SECRET}`)]),
    ],
    ['a card number in a Redis value', `redis ${redisPrefix}session:2: test card number ending 0008`, () => redis.hset(`${redisPrefix}session:2`, 'card', TEST_CARD)],
    [
      'a card number in a standalone data file',
      'standalone/leak.dat: test card number ending 0008',
      async () => writeFileSync(path.join(work, 'standalone', 'leak.dat'), Buffer.concat([randomBytes(100), Buffer.from(TEST_CARD), randomBytes(100)])),
    ],
  ])('finds %s, naming where and what but never the value', async (_name, finding, plant) => {
    await db.query('DELETE FROM planted.cards WHERE id > 1');
    await redis.del(`${redisPrefix}session:2`);
    rmSync(path.join(work, 'standalone', 'leak.dat'), { force: true });
    await plant();

    const result = await scan();
    expect(result.code).toBe(1);
    expect(result.out).toContain(finding);
    expect(result.out).not.toContain(TEST_CARD);
    expect(result.out).not.toContain(SECRET);
  });

  it('with --cleanup, removes what it scanned and nothing else', async () => {
    await scan('--cleanup');
    expect(await redis.exists(`${redisPrefix}session:1`)).toBe(0);
    expect(await redis.exists(`${otherPrefix}leak`)).toBe(1);
    expect(existsSync(path.join(work, 'standalone'))).toBe(false);
    expect(existsSync(path.join(work, 'manifest.txt'))).toBe(false);
    const admin = new Client({ connectionString: testInfra.pgAdminUrl });
    await admin.connect();
    const { rows } = await admin.query('SELECT datname FROM pg_database WHERE datname = ANY($1) ORDER BY 1', [[database, otherDatabase]]);
    await admin.end();
    expect(rows).toEqual([{ datname: otherDatabase }]);
  }, 30_000);
});
