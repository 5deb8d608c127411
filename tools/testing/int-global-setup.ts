import type { GlobalConfig } from 'jest';
import { createDatabase, newRunId, recordForAtRestScan } from '@gateway/testing';

/** The database global setup makes for a Jest worker (Jest numbers its workers from 1). */
export function workerDatabase(runDatabase: string, worker: number): string {
  return `${runDatabase}_w${worker}`;
}

/**
 * The integration tier's run: a database of its own for each Jest worker (services migrate their
 * schema in it from their tests, under the advisory lock) and a Redis prefix of its own, which
 * int-worker-env.ts narrows to the worker's. Suites that run at the same time in two workers
 * never share a table or a Redis key: some empty their schema or scan their prefix between tests.
 * (NATS subjects: each suite that uses the machine's NATS gives its apps a prefix of its own.)
 */
export default async function setup(globalConfig: GlobalConfig): Promise<void> {
  const runId = newRunId();
  const workers = Math.max(1, globalConfig.maxWorkers);
  process.env.TEST_RUN_ID = runId;
  process.env.TEST_RUN_DATABASE = `gw_int_${runId}`;
  process.env.TEST_INT_WORKERS = String(workers);
  for (let worker = 1; worker <= workers; worker += 1) {
    await createDatabase(workerDatabase(process.env.TEST_RUN_DATABASE, worker));
  }
  process.env.TEST_RUN_REDIS_PREFIX = `test:${runId}:`;
  recordForAtRestScan('redis', process.env.TEST_RUN_REDIS_PREFIX);
}
