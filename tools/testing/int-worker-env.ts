import { databaseUrl } from '@gateway/testing';
import { workerDatabase } from './int-global-setup';

/**
 * Runs in each worker before each suite's modules load (many read these at their top level):
 * the database and Redis prefix of this worker, out of those the tier's global setup made.
 */
const runDatabase = process.env.TEST_RUN_DATABASE;
const worker = Number(process.env.JEST_WORKER_ID ?? '1');
const workers = Number(process.env.TEST_INT_WORKERS ?? '0');
if (!runDatabase || !(worker >= 1 && worker <= workers)) {
  throw new Error(`Jest worker ${worker} has no database of its own: run integration tests with \`jest --selectProjects int\`.`);
}
process.env.TEST_DATABASE = workerDatabase(runDatabase, worker);
process.env.TEST_DATABASE_URL = databaseUrl(process.env.TEST_DATABASE);
process.env.TEST_REDIS_PREFIX = `${process.env.TEST_RUN_REDIS_PREFIX}w${worker}:`;
