import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_CARD } from '@gateway/testing';

/**
 * The log scan (tools/scripts/scan-logs.mjs, the last step of `npm test`) finds card data and
 * credentials written under the key that names them, in JSON lines and in objects as Node prints
 * them, and passes what the logger writes in their place and what merely looks alike.
 */

const SCRIPT = path.join(__dirname, 'scan-logs.mjs');

/**
 * Numbers of the test card's range (libs/testing/src/test-cards.ts, Luhn recomputed) that are
 * not among the test cards the scan looks for as they are: any full number under a card key is
 * found, not only those.
 */
const OTHER_CARD = `${TEST_CARD.slice(0, 14)}24`;
const OTHER_CARD_AS_NUMBER = `${TEST_CARD.slice(0, 14)}32`;

/** Each line a finding, with what the scan must call it. */
const LEAKS: [string, string][] = [
  ['{"level":"warn","card":{"securityCode":"123"},"msg":"x"}', 'a security code'],
  ['{"csc":456}', 'a security code'],
  ["  body: { cvv: '7890' }", 'a security code'],
  ['{"msg":"{\\"cvc\\":\\"321\\"}"}', 'a security code'],
  ['{"card":{"number":"512345xxxxxx0008","expiry":{"month":"1","year":"39"}}}', 'a card expiry'],
  ['{"expiry":{"year":"39","month":"1"}}', 'a card expiry'],
  ["  expiry: { month: '5', year: '39' },", 'a card expiry'],
  ['{"expiry":"0139"}', 'a card expiry'],
  ['{"expiryMonth":"01","expiryYear":"39"}', 'a card expiry'],
  ['> PUT /order/o-1 HTTP/1.1 Authorization: Basic dTpw', 'an Authorization header'],
  ["  headers: { authorization: 'Bearer abc.def' }", 'an Authorization header'],
  ['{"password":"hunter2"}', 'a password'],
  ['{"merchant":{"apiPassword":"0f3c9a"}}', 'a password'],
  ["  password: 'hunter2',", 'a password'],
  ['{"msg":"sent {\\"password\\":\\"s3cret\\"}"}', 'a password'],
  [`{"card":{"number":"${OTHER_CARD}"}}`, 'a card number'],
  [`{"pan":${OTHER_CARD_AS_NUMBER}}`, 'a card number'],
];

/** What the logger writes in place of a scrubbed value, and what only looks like card data. */
const CLEAN = [
  '{"level":"info","card":{"securityCode":"[REDACTED]","number":"[REDACTED]"},"securityCodePresent":true}',
  '{"sourceOfFunds":{"provided":{"card":{"number":"512345xxxxxx0008","securityCodePresence":"1"}}}}',
  '{"msg":"card 512345…0008 declined","requestId":"5f0c1a2e-1234-4c5d-9e8f-0123456789ab"}',
  '{"agreement":{"expiryDate":"2027-01-31"},"expiry":"[REDACTED]"}',
  '{"headers":{"authorization":"[REDACTED]"},"www-authenticate":"Basic realm=\\"gateway\\", charset=\\"UTF-8\\""}',
  '{"password":"[REDACTED]","apiPassword":null,"passwordRotatedAt":"2026-11-27T00:00:00.000Z","secret":""}',
  'error: password: expected a non-empty string',
  "  password: '****',",
  '{"number":1732740000001,"orderId":"o-100","amount":"101.00","time":1732749000123}',
  '{"transaction":{"id":"t-1","number":"2"},"csc":"[REDACTED]","cscResult":"MATCH"}',
];

function scan(dir: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, dir], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('scan-logs', () => {
  let work: string;

  beforeEach(() => {
    work = mkdtempSync(path.join(tmpdir(), 'scan-logs-'));
  });

  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('finds a security code, an expiry, an Authorization header, a password and a full card number under their keys', async () => {
    writeFileSync(path.join(work, 'app.log'), `${LEAKS.map(([line]) => line).join('\n')}\n`);
    const { code, out } = await scan(work);
    expect(code).toBe(1);
    const findings = out.split('\n').filter((line) => line.startsWith('  app.log:'));
    expect(findings).toEqual(LEAKS.map(([, what], i) => `  app.log:${i + 1}: ${what}`));
    // It names where, never what: no leaked value is printed.
    expect(out).not.toMatch(new RegExp(`hunter2|s3cret|${OTHER_CARD}|dTpw`));
  });

  it('passes what the logger writes in their place and what only looks alike', async () => {
    mkdirSync(path.join(work, 'logs'));
    writeFileSync(path.join(work, 'logs', 'edge.log'), `${CLEAN.join('\n')}\n`);
    const { code, out } = await scan(work);
    expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('none found') });
  });
});
