import { rmSync } from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { dropServiceRoles } from '@gateway/platform';
import { dropDatabase, keptForAtRestScan, testInfra } from '@gateway/testing';
import { readState } from './e2e-state';
import { vaultDumpFindings } from './vault-dump-check';

/**
 * How long an app is given to exit after SIGTERM before SIGKILL: more than any app's own shutdown
 * grace (the standalone's 60.1 s with these settings, the distributed apps' 50 s). An app that
 * spends its grace finishing work in flight is not broken; one that outlives it is. 20 s killed a
 * standalone still within its grace once (a full run of 2026-11-27).
 */
const STOP_WITHIN_MS = 70_000;

export default async function teardown(): Promise<void> {
  const state = readState();
  const processes = globalThis.__E2E_PROCESSES__ ?? [];
  const codes = await Promise.all(
    processes.map(async (p) => {
      const started = Date.now();
      const code = await p.stop('SIGTERM', STOP_WITHIN_MS);
      return [p.name, code, Date.now() - started] as const;
    }),
  );
  const slow = codes.filter(([, , ms]) => ms > 5_000);
  if (slow.length > 0) {
    // Work was in flight at the SIGTERM (a delivery, an inquiry, a sweep): which, its log says.
    process.stderr.write(`e2e: apps that took over 5 s to stop (name, exit code, ms): ${JSON.stringify(slow)}\n`);
  }
  const unclean = codes.filter(([, code]) => code !== 0);
  if (unclean.length > 0) {
    process.stderr.write(`e2e: apps that did not shut down cleanly: ${JSON.stringify(unclean)}\n`);
  }
  // After every e2e file has run, before the database goes: the vault holds no card data in clear.
  const vaultFindings = state.database ? await vaultDumpFindings(state.database) : [];
  // A full run (tools/scripts/test-all.sh) keeps the data for its at-rest scan, which removes it.
  const keep = keptForAtRestScan();
  if (state.database && !process.env.E2E_KEEP_DATABASE && !keep) {
    await dropDatabase(state.database);
    await dropServiceRoles(testInfra.pgAdminUrl, state.roles ?? []);
  }
  if (state.redisPrefix && !keep) {
    const redis = new Redis(testInfra.redisUrl);
    for await (const keys of redis.scanStream({ match: `${state.redisPrefix}*`, count: 500 })) {
      if ((keys as string[]).length > 0) {
        await redis.del(...(keys as string[]));
      }
    }
    redis.disconnect();
  }
  if (state.webhookReceiverTls) {
    rmSync(path.dirname(state.webhookReceiverTls.certFile), { recursive: true, force: true });
  }
  if (state.standaloneDataDir && !keep) {
    rmSync(state.standaloneDataDir, { recursive: true, force: true });
  }
  if (unclean.length > 0) {
    throw new Error('An app exited with a non-zero code on SIGTERM: graceful shutdown is broken.');
  }
  if (vaultFindings.length > 0) {
    throw new Error(`The token_vault schema holds card data in clear after the e2e run: ${vaultFindings.join('; ')}.`);
  }
}
