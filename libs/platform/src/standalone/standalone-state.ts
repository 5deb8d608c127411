import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { StartupError } from '../bootstrap/startup-error';
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
  try {
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
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new StartupError(
        `The standalone data folder ${path.dirname(file)} cannot be used by this user (${(err as Error).message}): ` +
          'make it writable for this user, or set STANDALONE_DATA_DIR to a folder it can write.',
      );
    }
    throw err;
  }
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
  const dataDir = path.resolve(config.STANDALONE_DATA_DIR, 'postgres');
  const probe = new Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  let serving: string | undefined;
  try {
    await probe.connect();
    serving = (await probe.query<{ data_directory: string }>('SHOW data_directory')).rows[0].data_directory;
  } catch {
    // Nothing serves there: started below.
  } finally {
    await probe.end().catch(() => undefined);
  }
  if (serving !== undefined) {
    // The secrets of this data folder (the password pepper, the webhook key) must be the ones
    // of the gateway that serves this database: run from another folder, or against another
    // gateway's port, a command would issue passwords that gateway never accepts.
    if (realPath(serving) !== realPath(dataDir)) {
      throw new Error(
        `The standalone database on port ${config.STANDALONE_PG_PORT} is the one of ${serving}, not of ${dataDir}: ` +
          'run this from the folder that gateway runs in, or set STANDALONE_DATA_DIR and STANDALONE_PG_PORT to its.',
      );
    }
    return { url, stop: async () => undefined, startedHere: false };
  }
  const pg = await startEmbeddedPostgres({
    dataDir,
    port: config.STANDALONE_PG_PORT,
    log,
  });
  return { ...pg, startedHere: true };
}

function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
