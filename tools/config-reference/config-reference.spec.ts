import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeVariables, SERVICE_DATABASES } from '@gateway/platform';
import { configFiles, REFERENCE_FILE, renderConfigReference, ROOT, SECTIONS } from './config-reference';

/**
 * docs/operations/configuration.md is generated; this is the CI check that it is current.
 * `npm run docs:config` (WRITE_CONFIG_REFERENCE=1) rewrites it instead of comparing.
 */
describe('configuration reference', () => {
  it('is up to date with the config classes (run `npm run docs:config` after changing one)', () => {
    const rendered = renderConfigReference();
    if (process.env.WRITE_CONFIG_REFERENCE === '1') {
      writeFileSync(REFERENCE_FILE, rendered);
    }
    expect(existsSync(REFERENCE_FILE)).toBe(true);
    expect(readFileSync(REFERENCE_FILE, 'utf8')).toBe(rendered);
  });

  it('covers every config class in apps/ and libs/ (a new one must be added to SECTIONS)', async () => {
    const covered = new Set<unknown>(SECTIONS.map((s) => s.configClass));
    const missing: string[] = [];
    for (const file of configFiles()) {
      for (const [name, exported] of Object.entries((await import(file)) as Record<string, unknown>)) {
        if (typeof exported === 'function' && Object.keys(describeVariables(exported as new () => object)).length > 0 && !covered.has(exported)) {
          missing.push(`${path.relative(ROOT, file)}: ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('lists every variable with its default and whether it is secret', () => {
    const reference = renderConfigReference();
    expect(reference).toMatch(/\| `DATABASE_URL` \| \*\*required\*\* \| \*\*yes\*\* \|/);
    // Required unless the other is set: neither is marked required on its own.
    expect(reference).toMatch(/\| `API_PASSWORD_PEPPER` \| \(unset\) \| \*\*yes\*\* \|/);
    expect(reference).toMatch(/\| `API_PASSWORD_PEPPERS` \| \(empty\) \| \*\*yes\*\* \|/);
    expect(reference).toMatch(/\| `NATS_REQUEST_TIMEOUT_MS` \| `10000` \| no \| .* \| integer 50–120000 \|/);
    expect(reference).toMatch(/\| `GATEWAY_PROFILE` \| `distributed` \| no \| .* \| one of `distributed`, `standalone` \|/);
  });

  it('names the same schema for each app as its data-access lib', async () => {
    const schemas: Record<string, string> = {
      'api-edge': (await import('@gateway/edge/data-access')).EDGE_SCHEMA.schema,
      'token-vault': (await import('@gateway/token-vault/data-access')).TOKEN_VAULT_SCHEMA.schema,
      'order-transaction': (await import('@gateway/order-transaction/data-access')).ORDER_TRANSACTION_SCHEMA.schema,
      'browser-payment': (await import('@gateway/browser-payment/data-access')).BROWSER_PAYMENT_SCHEMA.schema,
      verification: (await import('@gateway/verification/data-access')).VERIFICATION_SCHEMA.schema,
    };
    expect(Object.fromEntries(SERVICE_DATABASES.map((s) => [s.app, s.schema]))).toEqual(schemas);
  });
});
