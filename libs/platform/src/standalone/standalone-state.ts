import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { RunningPostgres, startEmbeddedPostgres } from '../database';
import { StandaloneConfig } from './standalone.config';

/**
 * Secrets a laptop run needs and nobody should have to invent: generated on first start,
 * kept (mode 0600) in the data folder next to the database they protect. Production reads
 * them from mounted Secrets instead.
 */
export interface StandaloneSecrets {
  apiPasswordPepper: string;
  /** Further service secrets (vault keys, notification keys...) by name. */
  [name: string]: string;
}

export async function loadStandaloneSecrets(config: StandaloneConfig, required: string[] = []): Promise<StandaloneSecrets> {
  const file = path.resolve(config.STANDALONE_DATA_DIR, 'secrets.json');
  await mkdir(path.dirname(file), { recursive: true });
  const secrets: Record<string, string> = existsSync(file) ? JSON.parse(await readFile(file, 'utf8')) : {};
  let changed = false;
  for (const name of ['apiPasswordPepper', ...required]) {
    if (!secrets[name]) {
      secrets[name] = randomBytes(32).toString('base64url');
      changed = true;
    }
  }
  if (changed) {
    await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    await chmod(file, 0o600);
  }
  return secrets as StandaloneSecrets;
}

/**
 * WEBHOOK_SECRET_KEYS of the standalone profile, from its generated secrets: the gateway opens
 * notification secrets with it, the admin CLI (--standalone) seals them.
 */
export function standaloneWebhookSecretKeys(secrets: StandaloneSecrets): string {
  return `standalone-1:${secrets.webhookSecretKey}`;
}

/**
 * The standalone database: the one a running standalone gateway already serves, or a fresh
 * start of the embedded Postgres (which the caller then stops).
 */
export async function openStandaloneDatabase(
  config: StandaloneConfig,
  log?: (line: string) => void,
): Promise<RunningPostgres & { startedHere: boolean }> {
  const url = `postgres://postgres:standalone@127.0.0.1:${config.STANDALONE_PG_PORT}/gateway`;
  const probe = new Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await probe.connect();
    await probe.end();
    return { url, stop: async () => undefined, startedHere: false };
  } catch {
    await probe.end().catch(() => undefined);
  }
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(config.STANDALONE_DATA_DIR, 'postgres'),
    port: config.STANDALONE_PG_PORT,
    log,
  });
  return { ...pg, startedHere: true };
}
