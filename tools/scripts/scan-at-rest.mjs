#!/usr/bin/env node
// Scans what a test run left at rest (issue 10, ARCHITECTURE 6): every schema of every Postgres
// database the run created, every Redis key under the run's prefixes and the standalone profile's
// data folders, for the test card numbers, security codes next to their field names, and the API
// passwords, peppers and keys the run issued (recorded under <artifacts>/secrets/). Only what
// this run created is scanned: the test tiers record it in the manifest named by
// TEST_AT_REST_MANIFEST (lines `database <name>`, `role <name>`, `redis <prefix>`, `dir <path>`)
// and keep it until this scan. Afterwards (--cleanup) it drops those databases and roles, deletes
// those Redis keys and folders. Exits 1 listing each finding (where, what), printing no secret.
//
// Usage: node tools/scripts/scan-at-rest.mjs [--manifest file] [--secrets dir] [--cleanup] [--cleanup-only]
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { values: args } = parseArgs({
  options: {
    manifest: { type: 'string', default: process.env.TEST_AT_REST_MANIFEST ?? 'test-artifacts/at-rest-manifest.txt' },
    secrets: { type: 'string', default: 'test-artifacts/secrets' },
    cleanup: { type: 'boolean', default: false },
    'cleanup-only': { type: 'boolean', default: false },
  },
});
const pgAdminUrl = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The run's resources, each once, in the order they were recorded. */
function readManifest(file) {
  const resources = { database: [], role: [], redis: [], dir: [] };
  if (!existsSync(file)) return resources;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(database|role|redis|dir) (.+)$/.exec(line.trim());
    if (match && !resources[match[1]].includes(match[2])) resources[match[1]].push(match[2]);
  }
  return resources;
}

/** The test card numbers, read from the one place that defines them. */
function testCardNumbers() {
  const source = readFileSync(path.join(ROOT, 'libs/testing/src/test-cards.ts'), 'utf8');
  return [...source.matchAll(/export const TEST_CARD\w* = '(\d{12,19})'/g)].map((m) => m[1]);
}

function issuedSecrets(dir) {
  if (!existsSync(dir)) return [];
  const all = readdirSync(dir).flatMap((name) => readFileSync(path.join(dir, name), 'utf8').split('\n'));
  return [...new Set(all.map((s) => s.trim()).filter((s) => s.length >= 12))];
}

/**
 * What must not be at rest. Card numbers and secrets anywhere, as text or as the hex Postgres
 * shows of bytea; a security code only beside a field name that says what it is (JSON or
 * key=value), since three digits alone turn up in every id, time and ciphertext.
 */
export function needlesFor(cards, secrets) {
  return [
    ...cards.map((text) => ({ what: `test card number ending ${text.slice(-4)}`, text })),
    ...secrets.map((text, i) => ({ what: `issued secret #${i + 1}`, text })),
  ].map((n) => ({ ...n, hex: Buffer.from(n.text, 'utf8').toString('hex') }));
}

// Quotes may come doubled (a record's text form) or escaped (JSON inside a JSON string).
const SECURITY_CODE = /(?:securityCode|security_code|cvv|cvc|csc)[\\"]*\s*[:=]\s*[\\"]*\d{3,4}\b/i;

/** Findings in one value (text, or a buffer read as latin1 so any clear bytes show). */
export function findIn(value, needles) {
  const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
  const lower = text.toLowerCase();
  const found = needles.filter((n) => text.includes(n.text) || lower.includes(n.hex)).map((n) => n.what);
  if (SECURITY_CODE.test(text)) found.push('a security code beside its field name');
  return found;
}

async function scanDatabase(database, needles, findings) {
  const url = new URL(pgAdminUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    await client.connect();
  } catch {
    return 0; // never created (a tier that failed early) or already dropped by its owner
  }
  let rows = 0;
  try {
    const tables = await client.query(
      `SELECT table_schema, table_name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    for (const { table_schema: schema, table_name: table } of tables.rows) {
      const quoted = `"${schema.replaceAll('"', '""')}"."${table.replaceAll('"', '""')}"`;
      // A row's text form: every column, bytea as hex, jsonb as JSON text.
      const result = await client.query({ text: `SELECT t::text AS row FROM ${quoted} t`, rowMode: 'array' });
      rows += result.rows.length;
      for (const [row] of result.rows) {
        for (const what of findIn(row, needles)) findings.push(`postgres ${database} ${schema}.${table}: ${what}`);
      }
    }
  } finally {
    await client.end();
  }
  return rows;
}

async function scanRedis(redis, prefix, needles, findings) {
  let keys = 0;
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
    for (const key of batch) {
      keys++;
      const type = await redis.type(key);
      const values =
        type === 'string' ? [await redis.getBuffer(key)]
        : type === 'hash' ? Object.entries(await redis.hgetallBuffer(key)).flat()
        : type === 'list' ? await redis.lrangeBuffer(key, 0, -1)
        : type === 'set' ? await redis.smembersBuffer(key)
        : type === 'zset' ? await redis.zrangeBuffer(key, 0, -1)
        : type === 'stream' ? (await redis.xrangeBuffer(key, '-', '+')).flat(3)
        : [];
      for (const value of [Buffer.from(key), ...values]) {
        for (const what of findIn(value, needles)) findings.push(`redis ${key}: ${what}`);
      }
    }
  }
  return keys;
}

/** A standalone run's folder (embedded Postgres files, stopped): the bytes on disk. */
function scanDir(dir, needles, findings) {
  let files = 0;
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && statSync(full).size < 256 * 1024 * 1024) {
        files++;
        // Raw bytes: a security code cannot be told from ciphertext here, card numbers and secrets can.
        const text = readFileSync(full).toString('latin1');
        for (const n of needles) if (text.includes(n.text)) findings.push(`file ${path.relative(ROOT, full)}: ${n.what}`);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

async function cleanup(resources) {
  if (resources.database.length + resources.role.length > 0) {
    const admin = new pg.Client({ connectionString: pgAdminUrl });
    await admin.connect();
    try {
      for (const database of resources.database) await admin.query(`DROP DATABASE IF EXISTS "${database.replaceAll('"', '""')}" WITH (FORCE)`);
      for (const role of resources.role) await admin.query(`DROP ROLE IF EXISTS "${role.replaceAll('"', '""')}"`);
    } finally {
      await admin.end();
    }
  }
  if (resources.redis.length > 0) {
    const redis = new Redis(redisUrl, { lazyConnect: true });
    await redis.connect();
    for (const prefix of resources.redis) {
      for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) if (batch.length > 0) await redis.del(...batch);
    }
    redis.disconnect();
  }
  for (const dir of resources.dir) rmSync(dir, { recursive: true, force: true });
}

async function main() {
  const manifest = path.resolve(args.manifest);
  const resources = readManifest(manifest);
  if (args['cleanup-only']) {
    await cleanup(resources);
    rmSync(manifest, { force: true });
    return 0;
  }
  const started = Date.now();
  const needles = needlesFor(testCardNumbers(), issuedSecrets(path.resolve(args.secrets)));
  const findings = [];
  let rows = 0;
  let keys = 0;
  let files = 0;
  for (const database of resources.database) rows += await scanDatabase(database, needles, findings);
  if (resources.redis.length > 0) {
    const redis = new Redis(redisUrl, { lazyConnect: true });
    await redis.connect();
    for (const prefix of resources.redis) keys += await scanRedis(redis, prefix, needles, findings);
    redis.disconnect();
  }
  for (const dir of resources.dir) files += scanDir(dir, needles, findings);
  if (args.cleanup) {
    await cleanup(resources);
    rmSync(manifest, { force: true });
  }
  const scope = `${resources.database.length} databases (${rows} rows), ${resources.redis.length} Redis prefixes (${keys} keys), ${resources.dir.length} folders (${files} files)`;
  if (findings.length > 0) {
    console.error(`at-rest scan: ${findings.length} finding(s) in ${scope}:`);
    for (const f of [...new Set(findings)].slice(0, 50)) console.error(`  ${f}`);
    return 1;
  }
  console.log(`at-rest scan: ${scope}, ${needles.length} card numbers and secrets looked for, none found (${Date.now() - started} ms)`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = await main();
}
