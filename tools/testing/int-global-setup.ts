import { createDatabase, newRunId, recordForAtRestScan, testInfra } from '@gateway/testing';

/**
 * The integration tier's run: a database of its own (services migrate their schema in it
 * from their tests, under the advisory lock), and Redis and NATS prefixes of its own.
 */
export default async function setup(): Promise<void> {
  const runId = newRunId();
  const database = `gw_int_${runId}`;
  process.env.TEST_RUN_ID = runId;
  process.env.TEST_DATABASE = database;
  process.env.TEST_DATABASE_URL = await createDatabase(database);
  process.env.TEST_REDIS_PREFIX = `test:${runId}:`;
  recordForAtRestScan('redis', process.env.TEST_REDIS_PREFIX);
  process.env.TEST_NATS_PREFIX = `t${runId}.`;
  process.env.TEST_NATS_URL = testInfra.natsUrl;
}
