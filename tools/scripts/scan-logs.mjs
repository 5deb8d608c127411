#!/usr/bin/env node
// Scans everything a test run wrote (app logs and the run's console output) for what must
// never be logged: the test card numbers, any API password or server secret issued during
// the run (recorded by the test harness under <dir>/secrets/), HTTP Basic credentials, and
// card data or credentials as a value under the key that names them (JSON, or an object as
// Node prints it): a security code, an expiry, a full card number, a password, an
// Authorization header. What the logger writes in their place (`[REDACTED]`, a masked number
// such as 512345…0008) does not match.
// Exits 1 listing each finding (file, line, what), printing none of the secrets themselves.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(process.argv[2] ?? 'test-artifacts');

// The only test card (ARCHITECTURE.md's 512345xxxxxx0008), the second card of its range, its
// Luhn-broken twin, its unknown-BIN variant and its 12-digit variant (libs/testing/src/test-cards.ts).
const CARDS = ['5123450000000008', '5123450000000016', '5123450000000009', '1123450000000007', '512345180008'];

/** A quote around a key or a value: JSON's, Node's around a string, or JSON's escaped inside a JSON string. */
const QUOTE = `(?:\\\\?["'])`;

/**
 * `key` (one of, as a regular expression) given a value `value` matches: a JSON member
 * (`"key":"value"`, `"key":value`, `\"key\":\"value\"` inside a JSON string) or a member as Node
 * prints an object (`key: 'value'`). The key is whole: `securityCodePresent` is not `securityCode`.
 */
function member(key, value) {
  return new RegExp(`(?<![A-Za-z0-9_-])(?:${key})${QUOTE}?\\s*:\\s*${QUOTE}?(?:${value})`, 'i');
}

const PATTERNS = [
  { what: 'an HTTP Basic credential', regex: /Basic\s+[A-Za-z0-9+/]{20,}={0,2}/ },
  { what: 'an Authorization header', regex: /"authorization"\s*:\s*"(?!\[REDACTED\])/i },
  // As a header is written (`Authorization: Basic dTpw`), however short the credential.
  { what: 'an Authorization header', regex: member('authorization|proxy-authorization', '(?:Basic|Bearer|Digest)\\s+[A-Za-z0-9+/=._~-]') },
  { what: 'a security code', regex: member('securityCode|security_code|cvv2?|cvc2?|csc', '\\d{3,4}(?!\\d)') },
  // An expiry object (`"expiry":{"month":"1","year":"39"}`, either member first), an expiry as
  // one value (`"expiry":"0139"`), or its month or year alone.
  {
    what: 'a card expiry',
    regex: member('expiry', `\\{\\s*${QUOTE}?(?:month|year)${QUOTE}?\\s*:\\s*${QUOTE}?\\d|${QUOTE}\\d{2,4}${QUOTE}`),
  },
  { what: 'a card expiry', regex: member('expiryMonth|expiryYear|expiry_month|expiry_year', '\\d') },
  // A quoted value only: `"password":null` and prose ("password: expected") are not one; nor
  // is what the logger writes in its place.
  { what: 'a password', regex: member('password|passwd|apiPassword', `${QUOTE}(?!\\[REDACTED\\])[^\\s"'\\\\*]`) },
  // A full card number (not one of the test cards, which are looked for as they are) where a
  // card number goes; a masked one holds 'x' or '…', and the Luhn check keeps ids out.
  { what: 'a card number', regex: member('number|cardNumber|pan|accountNumber', '(\\d{12,19})(?!\\d)'), check: (digits) => luhnValid(digits) && !CARDS.includes(digits) },
];

/** The Luhn check every card number passes. */
function luhnValid(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** The pattern is in the line (its value passing its check, when it has one). */
function found(pattern, line) {
  if (!pattern.check) return pattern.regex.test(line);
  const all = new RegExp(pattern.regex.source, `${pattern.regex.flags}g`);
  for (const match of line.matchAll(all)) {
    if (pattern.check(match[1])) return true;
  }
  return false;
}

function files(root) {
  const out = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'secrets' && entry.name !== 'screenshots') out.push(...files(full));
    } else if (/\.(log|txt|json)$/.test(entry.name)) {
      out.push(full);
    }
  }
  return out;
}

function secrets() {
  const secretsDir = path.join(dir, 'secrets');
  try {
    statSync(secretsDir);
  } catch {
    return [];
  }
  return readdirSync(secretsDir).flatMap((name) =>
    readFileSync(path.join(secretsDir, name), 'utf8')
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s.length >= 12),
  );
}

const needles = [...CARDS.map((c) => ({ what: 'a test card number', text: c })), ...secrets().map((s) => ({ what: 'an issued secret', text: s }))];
const findings = [];
let scanned = 0;
for (const file of files(dir)) {
  const lines = readFileSync(file, 'utf8').split('\n');
  scanned += lines.length;
  lines.forEach((line, i) => {
    for (const needle of needles) {
      if (line.includes(needle.text)) findings.push(`${path.relative(dir, file)}:${i + 1}: ${needle.what}`);
    }
    for (const what of new Set(PATTERNS.filter((pattern) => found(pattern, line)).map((pattern) => pattern.what))) {
      findings.push(`${path.relative(dir, file)}:${i + 1}: ${what}`);
    }
  });
}

if (findings.length > 0) {
  console.error(`log scan: ${findings.length} finding(s) in ${dir}:`);
  for (const f of findings.slice(0, 50)) console.error(`  ${f}`);
  process.exit(1);
}
console.log(`log scan: ${scanned} lines, ${needles.length} secrets and card numbers looked for, none found`);
