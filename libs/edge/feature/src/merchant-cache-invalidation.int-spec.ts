import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SUBJECTS } from '@gateway/contracts';
import { MerchantDirectory } from '@gateway/edge/domain';
import { createLogger, standaloneBus } from '@gateway/platform';
import { logLinesInto, TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from './testing/edge-test-app';

/**
 * A merchant change made with the admin CLI's operations (ManageMerchants, as `admin disable`,
 * `rotate-password`, `mode`, `set` run them, on a connection of their own) reaches every edge
 * replica at once, though each keeps profiles for a minute: the database notifies the change
 * and each replica drops that merchant's profile (docs/decisions/merchant-cache-invalidation.md).
 * Each wait below gives up after 5 s, far inside the minute the profile would otherwise stay.
 */
const CACHE_TTL_MS = 60_000;
const VERIFY = JSON.stringify({
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
});

interface Replica {
  edge: EdgeTestApp;
  logLines: Record<string, unknown>[];
}

/** What the service received with each merchant's last request: the profile slice in its envelope. */
const received = new Map<string, { mode: string; settings: Record<string, unknown> }>();
const replicas: Replica[] = [];
/** The admin CLI's operations, on replica 0's database (it tells no replica itself). */
const admin = () => replicas[0].edge.merchants;

function basic(merchantId: string, password: string): string {
  return `Basic ${Buffer.from(`merchant.${merchantId}:${password}`).toString('base64')}`;
}

async function verify({ edge }: Replica, merchant: TestMerchantCredentials, password = merchant.password): Promise<number> {
  const response = await edge.fastify.inject({
    method: 'PUT',
    url: `/api/rest/version/100/merchant/${merchant.id}/order/o-1/transaction/t-1`,
    headers: { authorization: basic(merchant.id, password), 'content-type': 'application/json' },
    payload: VERIFY,
  });
  return response.statusCode;
}

/** Asks again until the replica answers `status`. */
async function answers(replica: Replica, merchant: TestMerchantCredentials, status: number, password?: string): Promise<void> {
  await waitFor(async () => (await verify(replica, merchant, password)) === status, {
    timeoutMs: 5_000,
    intervalMs: 10,
    what: `${status} for merchant ${merchant.id}`,
  });
}

/** The database session the replica's listener is on, as its last "listening" log line names it. */
function listenerPid(replica: Replica): number | undefined {
  const line = replica.logLines.findLast((l) => typeof l.msg === 'string' && l.msg.startsWith('listening for merchant changes'));
  return line?.backendPid as number | undefined;
}

async function startReplica(): Promise<Replica> {
  const logLines: Record<string, unknown>[] = [];
  const sink = logLinesInto(logLines);
  const edge = await startEdgeTestApp({
    logger: createLogger({ service: 'api-edge', level: 'info', destination: sink }),
    env: { MERCHANT_CACHE_TTL_MS: String(CACHE_TTL_MS) },
  });
  return { edge, logLines };
}

beforeAll(async () => {
  standaloneBus.register(SUBJECTS.orderTransaction.verify, async (data) => {
    const { merchant } = (data as { envelope: { merchant: { id: string; mode: string; settings: Record<string, unknown> } } }).envelope;
    received.set(merchant.id, merchant);
    return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
  });
  replicas.push(await startReplica(), await startReplica());
});

afterAll(async () => {
  standaloneBus.unregister(SUBJECTS.orderTransaction.verify);
  await Promise.all(replicas.map((replica) => replica.edge.close()));
});

/** A new merchant each replica has authenticated, so each holds its profile in its cache. */
async function cachedEverywhere(): Promise<TestMerchantCredentials> {
  const merchant = await replicas[0].edge.createMerchant();
  for (const replica of replicas) {
    expect(await verify(replica, merchant)).toBe(201);
  }
  return merchant;
}

describe('a merchant changed while every edge replica holds its profile', () => {
  it('is refused on every replica at once once disabled (403), and served again once enabled', async () => {
    const merchant = await cachedEverywhere();
    await admin().setStatus(merchant.id, 'DISABLED');
    for (const replica of replicas) {
      await answers(replica, merchant, 403);
    }
    await admin().setStatus(merchant.id, 'ENABLED');
    for (const replica of replicas) {
      await answers(replica, merchant, 201);
    }
  });

  it('stops taking a revoked password on every replica at once, and takes the new one', async () => {
    const merchant = await cachedEverywhere();
    const { password } = await admin().rotatePassword(merchant.id, 0);
    for (const replica of replicas) {
      await answers(replica, merchant, 401);
      expect(await verify(replica, merchant, password)).toBe(201);
    }
  });

  it('sends the services its new mode and settings from every replica at once', async () => {
    const merchant = await cachedEverywhere();
    await admin().setMode(merchant.id, 'LIVE');
    await admin().configure(merchant.id, { 'privileges.excessiveRefund': true });
    for (const replica of replicas) {
      await waitFor(
        async () => {
          await verify(replica, merchant);
          const slice = received.get(merchant.id);
          return slice?.mode === 'LIVE' && (slice.settings.privileges as Record<string, unknown>).excessiveRefund === true;
        },
        { timeoutMs: 5_000, intervalMs: 10, what: 'the new profile at the service' },
      );
    }
  });
});

describe('a merchant row changed by any writer (an operator\'s psql session), while every edge replica holds what it read', () => {
  let database: Client;
  const directory = ({ edge }: Replica) => edge.running.app.get(MerchantDirectory);
  const newId = () => `PSQL${randomBytes(6).toString('hex').toUpperCase()}`;
  /** Every replica reads `id` and keeps its answer: none, for a merchant that does not exist yet. */
  async function unknownEverywhere(id: string): Promise<void> {
    for (const replica of replicas) {
      expect(await directory(replica).find(id)).toBeNull();
    }
  }
  async function eachReplicaFinds(id: string, present: boolean): Promise<void> {
    for (const replica of replicas) {
      await waitFor(async () => ((await directory(replica).find(id)) !== null) === present, {
        timeoutMs: 5_000,
        intervalMs: 10,
        what: `merchant ${id} ${present ? 'found' : 'gone'}`,
      });
    }
  }

  beforeAll(async () => {
    database = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await database?.end();
  });

  it('is refused on every replica at once once deleted', async () => {
    const merchant = await cachedEverywhere();
    await database.query('DELETE FROM edge.merchants WHERE id = $1', [merchant.id]);
    for (const replica of replicas) {
      await answers(replica, merchant, 401);
    }
  });

  it('answers under its new id only, on every replica at once, once its id changed', async () => {
    const merchant = await cachedEverywhere();
    const renamed = newId();
    await unknownEverywhere(renamed);
    await database.query('UPDATE edge.merchants SET id = $2 WHERE id = $1', [merchant.id, renamed]);
    await eachReplicaFinds(merchant.id, false);
    await eachReplicaFinds(renamed, true);
  });

  it('is found on every replica at once once inserted, though each had found no such merchant', async () => {
    const { id: existing } = await replicas[0].edge.createMerchant();
    const inserted = newId();
    await unknownEverywhere(inserted);
    // A copy of another merchant's row under the new id: whatever the columns are.
    await database.query(
      `INSERT INTO edge.merchants
       SELECT (jsonb_populate_record(NULL::edge.merchants, to_jsonb(m) || jsonb_build_object('id', $2::text))).* FROM edge.merchants m WHERE id = $1`,
      [existing, inserted],
    );
    await eachReplicaFinds(inserted, true);
  });
});

describe('the listener of a replica', () => {
  let database: Client;

  beforeAll(async () => {
    database = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await database?.end();
  });

  it('is connected, as the replica\'s metric says', async () => {
    for (const { edge } of replicas) {
      const metrics = await edge.fastify.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/^gateway_edge_merchant_changes_listening 1$/m);
    }
  });

  /**
   * Until the replica has handled every change notified so far: a probe merchant cached, then
   * disabled, as seen by the replica. Postgres delivers notifications in commit order, so the ones before it
   * (a merchant's INSERT, which drops that merchant's profile, late on a loaded machine) have
   * been handled by then.
   */
  async function changesHeard(replica: Replica): Promise<void> {
    const probe = await replica.edge.createMerchant();
    // Cached while enabled: only a handled notification (its INSERT's or its UPDATE's) turns it 403.
    expect(await verify(replica, probe)).toBe(201);
    await admin().setStatus(probe.id, 'DISABLED');
    await answers(replica, probe, 403);
  }

  it('connects again after its session was killed, and drops every profile it holds: a change made meanwhile applies then', async () => {
    const [replica] = replicas;
    const merchant = await replica.edge.createMerchant();
    await changesHeard(replica);
    expect(await verify(replica, merchant)).toBe(201);
    const killed = listenerPid(replica)!;
    expect(killed).toEqual(expect.any(Number));
    // A change no listener hears (triggers off in this session), as one made while a replica's
    // listener is away: the replica keeps what it holds.
    await database.query('BEGIN');
    await database.query('SET LOCAL session_replication_role = replica');
    await database.query(`UPDATE edge.merchants SET status = 'DISABLED' WHERE id = $1`, [merchant.id]);
    await database.query('COMMIT');
    expect(await verify(replica, merchant)).toBe(201);

    await database.query('SELECT pg_terminate_backend($1)', [killed]);
    await waitFor(async () => listenerPid(replica) !== killed, { timeoutMs: 10_000, what: 'the listener back' });
    expect(await verify(replica, merchant)).toBe(403);
    expect(replica.logLines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: expect.stringContaining('not listening for merchant changes') }),
    );
    const metrics = await replica.edge.fastify.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^gateway_edge_merchant_changes_listening 1$/m);
  });

  it('is a session of its own, named apart from the pool\'s in pg_stat_activity', async () => {
    for (const replica of replicas) {
      const { rows } = await database.query('SELECT application_name FROM pg_stat_activity WHERE pid = $1', [listenerPid(replica)]);
      expect(rows).toEqual([{ application_name: expect.stringMatching(/:merchant-changes$/) }]);
    }
  });
});
