import type Redis from 'ioredis';
import { ReplaceOutcome, SessionLifetime, SessionLookup, SessionStore, StoredSession } from './session-store';

/**
 * Compare-and-set in one round trip: the data is replaced only while it still has the version
 * the update was computed from and belongs to the same merchant; both keys get a new expiry.
 */
const REPLACE = `
local current = redis.call('GET', KEYS[1])
if not current then return 'GONE' end
local stored = cjson.decode(current)
if stored.version ~= ARGV[1] or stored.merchantId ~= ARGV[2] then return 'CONFLICT' end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
return 'REPLACED'
`;

/**
 * Payment sessions in Redis (the distributed profile): `session:<id>` holds the session as JSON
 * (card data only as the vault's sealed value) and expires with it; `session-seen:<id>` holds
 * the merchant id a while longer, which is how an expired session is told from an unknown one.
 * Keys carry the client's prefix (REDIS_KEY_PREFIX).
 */
export class RedisSessionStore implements SessionStore {
  constructor(private readonly redis: Redis) {}

  async create(session: StoredSession, lifetime: SessionLifetime): Promise<void> {
    const created = await this.redis
      .multi()
      .set(dataKey(session.id), JSON.stringify(session), 'PX', lifetime.ttlMs, 'NX')
      .set(seenKey(session.id), session.merchantId, 'PX', lifetime.ttlMs + lifetime.expiredNoticeMs)
      .exec();
    const [error, answer] = created?.[0] ?? [new Error('transaction discarded'), null];
    if (error) {
      throw error;
    }
    if (answer !== 'OK') {
      throw new Error('session id collision');
    }
  }

  async find(merchantId: string, id: string): Promise<SessionLookup> {
    const [data, seenBy] = await this.redis.mget(dataKey(id), seenKey(id));
    if (data) {
      const session = JSON.parse(data) as StoredSession;
      return session.merchantId === merchantId ? { state: 'ACTIVE', session } : { state: 'UNKNOWN' };
    }
    return seenBy === merchantId ? { state: 'EXPIRED' } : { state: 'UNKNOWN' };
  }

  async replace(next: StoredSession, expectedVersion: string, lifetime: SessionLifetime): Promise<ReplaceOutcome> {
    return (await this.redis.eval(
      REPLACE,
      2,
      dataKey(next.id),
      seenKey(next.id),
      expectedVersion,
      next.merchantId,
      JSON.stringify(next),
      String(lifetime.ttlMs),
      String(lifetime.ttlMs + lifetime.expiredNoticeMs),
    )) as ReplaceOutcome;
  }
}

function dataKey(id: string): string {
  return `session:${id}`;
}

function seenKey(id: string): string {
  return `session-seen:${id}`;
}
