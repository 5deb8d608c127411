import type Redis from 'ioredis';
import { ReplaceOutcome, SessionLifetime, SessionLookup, SessionState, SessionStore, StoredSession } from './session-store';

/**
 * Compare-and-set in one round trip: the data is replaced only while it still has the version
 * and the sealed card the write was computed from and belongs to the same merchant. An update
 * (ARGV[7] 'UPDATE') gives both keys a new expiry; an amendment keeps the expiry the data has.
 */
const REPLACE = `
local current = redis.call('GET', KEYS[1])
if not current then return 'GONE' end
local stored = cjson.decode(current)
local card = ''
if type(stored.card) == 'table' then card = stored.card.sealed end
if stored.version ~= ARGV[1] or stored.merchantId ~= ARGV[2] or card ~= ARGV[6] then return 'CONFLICT' end
if ARGV[7] == 'UPDATE' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
else
  redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
end
return 'REPLACED'
`;

/**
 * Creates a session only where no live one has its id, and then its notice of expiry with it: a
 * refused create changes nothing (a MULTI would still have set the notice, under the other
 * merchant, over the live session's). One command, where a MULTI is an ioredis Pipeline, whose
 * objects outlive scavenges (docs/performance.md, auto-pipelining).
 */
const CREATE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 'COLLISION' end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 'CREATED'
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
    const created = await this.redis.eval(
      CREATE,
      2,
      dataKey(session.id),
      seenKey(session.id),
      JSON.stringify(session),
      String(lifetime.ttlMs),
      session.merchantId,
      String(lifetime.ttlMs + lifetime.expiredNoticeMs),
    );
    if (created !== 'CREATED') {
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

  async replace(next: StoredSession, expected: SessionState, lifetime: SessionLifetime): Promise<ReplaceOutcome> {
    return this.write(next, expected, lifetime);
  }

  async amend(next: StoredSession, expected: SessionState): Promise<ReplaceOutcome> {
    return this.write(next, expected, null);
  }

  private async write(next: StoredSession, expected: SessionState, lifetime: SessionLifetime | null): Promise<ReplaceOutcome> {
    return (await this.redis.eval(
      REPLACE,
      2,
      dataKey(next.id),
      seenKey(next.id),
      expected.version,
      next.merchantId,
      JSON.stringify(next),
      String(lifetime?.ttlMs ?? 0),
      String(lifetime ? lifetime.ttlMs + lifetime.expiredNoticeMs : 0),
      expected.cardSealed ?? '',
      lifetime ? 'UPDATE' : 'AMEND',
    )) as ReplaceOutcome;
  }
}

function dataKey(id: string): string {
  return `session:${id}`;
}

function seenKey(id: string): string {
  return `session-seen:${id}`;
}
