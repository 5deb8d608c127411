import { Client } from 'pg';
import { SUBJECTS } from '@gateway/contracts';
import { MerchantDirectory } from '@gateway/edge/domain';
import { standaloneBus } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan, TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from './testing/edge-test-app';

/**
 * A TRUNCATE of edge.merchants fires no row trigger: its own statement trigger tells every edge
 * replica to drop all it caches (docs/decisions/merchant-cache-invalidation.md, amendment). A
 * database of its own: the run's is shared by the other test files, whose merchants a TRUNCATE
 * would take. Each replica keeps profiles for a minute; each wait gives up after 5 s.
 */
const CACHE_TTL_MS = 60_000;
const database = `${process.env.TEST_DATABASE}_merchant_truncate`;
const VERIFY = JSON.stringify({
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
});

const replicas: EdgeTestApp[] = [];
let sql: Client;

async function verify(edge: EdgeTestApp, merchant: TestMerchantCredentials): Promise<number> {
  const response = await edge.fastify.inject({
    method: 'PUT',
    url: `/api/rest/version/100/merchant/${merchant.id}/order/o-1/transaction/t-1`,
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    payload: VERIFY,
  });
  return response.statusCode;
}

beforeAll(async () => {
  const url = await createDatabase(database);
  standaloneBus.register(SUBJECTS.orderTransaction.verify, async () => ({ body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } }));
  for (let i = 0; i < 2; i++) {
    replicas.push(await startEdgeTestApp({ env: { DATABASE_URL: url, MERCHANT_CACHE_TTL_MS: String(CACHE_TTL_MS) } }));
  }
  sql = new Client({ connectionString: url });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  standaloneBus.unregister(SUBJECTS.orderTransaction.verify);
  await sql?.end();
  await Promise.all(replicas.map((edge) => edge.close()));
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

describe('the merchants truncated while every edge replica holds their profiles', () => {
  it('are refused on every replica at once (401), the whole cache dropped', async () => {
    const merchants = [await replicas[0].createMerchant(), await replicas[0].createMerchant()];
    for (const edge of replicas) {
      for (const merchant of merchants) {
        expect(await verify(edge, merchant)).toBe(201);
      }
    }

    await sql.query('TRUNCATE edge.merchants');

    for (const edge of replicas) {
      for (const merchant of merchants) {
        await waitFor(async () => (await verify(edge, merchant)) === 401, { timeoutMs: 5_000, intervalMs: 10, what: `401 for merchant ${merchant.id}` });
      }
    }
  });

  it('reads a merchant provisioned again under the same id afresh on every replica', async () => {
    const merchant = await replicas[0].createMerchant();
    const directory = (edge: EdgeTestApp) => edge.running.app.get(MerchantDirectory);
    for (const edge of replicas) {
      expect(await verify(edge, merchant)).toBe(201);
    }
    const { rows } = await sql.query('SELECT to_jsonb(m) AS row FROM edge.merchants m WHERE id = $1', [merchant.id]);

    // Emptied and filled again in one transaction, the same id now DISABLED: the row trigger
    // of the INSERT would tell the replicas too, so it is off in this session, and only the
    // TRUNCATE's statement trigger speaks.
    await sql.query('BEGIN');
    await sql.query('TRUNCATE edge.merchants');
    await sql.query('SET LOCAL session_replication_role = replica');
    await sql.query(
      `INSERT INTO edge.merchants SELECT (jsonb_populate_record(NULL::edge.merchants, $1::jsonb || '{"status": "DISABLED"}'::jsonb)).*`,
      [rows[0].row],
    );
    await sql.query('COMMIT');

    for (const edge of replicas) {
      await waitFor(async () => (await verify(edge, merchant)) === 403, { timeoutMs: 5_000, intervalMs: 10, what: `403 for merchant ${merchant.id}` });
      expect((await directory(edge).find(merchant.id))?.status).toBe('DISABLED');
    }
  });
});
