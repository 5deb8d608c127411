import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The at-rest scan after a full test run (tools/scripts/scan-at-rest.mjs, docs/decisions/
 * at-rest-scan.md) looks only at what the run created. With TEST_AT_REST_MANIFEST set (by
 * tools/scripts/test-all.sh), the tiers record here each database, service role, Redis prefix
 * and standalone data folder they create, and leave them in place for the scan, which removes
 * them afterwards. Without it (a developer running one file) nothing changes: tiers clean up.
 */
export type AtRestResource = 'database' | 'role' | 'redis' | 'dir';

/** True when the run's data must stay until the at-rest scan: skip drops and deletions. */
export function keptForAtRestScan(): boolean {
  return Boolean(process.env.TEST_AT_REST_MANIFEST);
}

export function recordForAtRestScan(kind: AtRestResource, ...names: string[]): void {
  const manifest = process.env.TEST_AT_REST_MANIFEST;
  if (!manifest || names.length === 0) {
    return;
  }
  mkdirSync(path.dirname(manifest), { recursive: true });
  appendFileSync(manifest, names.map((name) => `${kind} ${name}\n`).join(''));
}

const recordedSecrets = new Set<string>();

/** A key or password the run derived: the scans look for it in logs and at rest. */
export function recordRunSecret(secret: string): void {
  if (!process.env.TEST_AT_REST_MANIFEST || recordedSecrets.has(secret)) {
    return;
  }
  recordedSecrets.add(secret);
  const dir = path.join(path.dirname(process.env.TEST_AT_REST_MANIFEST), 'secrets');
  mkdirSync(dir, { recursive: true });
  appendFileSync(path.join(dir, `run-keys-${process.pid}.txt`), `${secret}\n`);
}
