#!/usr/bin/env node
// Scans everything a test run wrote (app logs and the run's console output) for what must
// never be logged: the test card numbers, any API password or server secret issued during
// the run (recorded by the test harness under <dir>/secrets/), and HTTP Basic credentials.
// Exits 1 listing each finding (file, line, what), printing none of the secrets themselves.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(process.argv[2] ?? 'test-artifacts');

// The only test card (ARCHITECTURE.md's 512345xxxxxx0008), the second card of its range, its
// Luhn-broken twin and its unknown-BIN variant (libs/testing/src/test-cards.ts).
const CARDS = ['5123450000000008', '5123450000000016', '5123450000000009', '1123450000000007'];

const PATTERNS = [
  { what: 'an HTTP Basic credential', regex: /Basic\s+[A-Za-z0-9+/]{20,}={0,2}/ },
  { what: 'an Authorization header', regex: /"authorization"\s*:\s*"(?!\[REDACTED\])/i },
];

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
    for (const pattern of PATTERNS) {
      if (pattern.regex.test(line)) findings.push(`${path.relative(dir, file)}:${i + 1}: ${pattern.what}`);
    }
  });
}

if (findings.length > 0) {
  console.error(`log scan: ${findings.length} finding(s) in ${dir}:`);
  for (const f of findings.slice(0, 50)) console.error(`  ${f}`);
  process.exit(1);
}
console.log(`log scan: ${scanned} lines, ${needles.length} secrets and card numbers looked for, none found`);
