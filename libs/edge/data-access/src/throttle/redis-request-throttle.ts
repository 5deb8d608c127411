import type Redis from 'ioredis';
import {
  AdmitRequest,
  FailedAuthentication,
  NOT_THROTTLED,
  RequestThrottle,
  throttled,
  ThrottleLimits,
  throttleKeys,
  ThrottleVerdict,
} from './request-throttle';

/**
 * One round trip per admitted request: the failure blocks and the rate limit are read and
 * the rate's state advanced in one script. The rate limit is GCRA on Redis's clock (one key
 * per merchant holding the theoretical arrival time in microseconds), exact across every edge
 * replica, whatever their number.
 *
 * KEYS: merchant failures, address failures, merchant rate.
 * ARGV: check failures (1/0), merchant limit, address limit, rate per second (0: none).
 * Returns {0} admitted, {1, ms} blocked by failures, {2, ms} over the rate.
 */
const ADMIT = `
if ARGV[1] == '1' then
  local wait = 0
  for i, limit in ipairs({ARGV[2], ARGV[3]}) do
    if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(limit) then
      local ttl = redis.call('PTTL', KEYS[i])
      if ttl > wait then wait = ttl end
    end
  end
  if wait > 0 then return {1, wait} end
end
local rate = tonumber(ARGV[4])
if rate > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local interval = 1000000 / rate
  local tolerance = 1000000 - interval
  local arrival = tonumber(redis.call('GET', KEYS[3]) or '0')
  if arrival < now then arrival = now end
  if arrival - now > tolerance then
    return {2, math.ceil((arrival - now - tolerance) / 1000)}
  end
  arrival = arrival + interval
  redis.call('SET', KEYS[3], string.format('%.0f', arrival), 'PX', math.ceil((arrival - now) / 1000) + 1)
end
return {0}
`;

/**
 * Counts a failure in each key's fixed window; the key reaching its limit is kept for the
 * block period from then. Returns the longest time left blocked among keys that had already
 * reached their limit, 0 if none had.
 *
 * KEYS: merchant failures, address failures.
 * ARGV: count the merchant (1/0), merchant limit, address limit, window ms, block ms.
 */
const RECORD_FAILURE = `
local wait = 0
local function count(key, limit)
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, ARGV[4]) end
  if n == limit then redis.call('PEXPIRE', key, ARGV[5]) end
  if n > limit then
    local ttl = redis.call('PTTL', key)
    if ttl > wait then wait = ttl end
  end
end
if ARGV[1] == '1' then count(KEYS[1], tonumber(ARGV[2])) end
count(KEYS[2], tonumber(ARGV[3]))
return wait
`;

type ThrottleCommands = {
  gatewayThrottleAdmit(
    merchantFailures: string,
    addressFailures: string,
    merchantRate: string,
    checkFailures: string,
    merchantLimit: number,
    addressLimit: number,
    ratePerSecond: number,
  ): Promise<[number, number?]>;
  gatewayThrottleFailure(
    merchantFailures: string,
    addressFailures: string,
    countMerchant: string,
    merchantLimit: number,
    addressLimit: number,
    windowMs: number,
    blockMs: number,
  ): Promise<number>;
};

export class RedisRequestThrottle implements RequestThrottle {
  private readonly redis: Redis & ThrottleCommands;

  constructor(
    redis: Redis,
    private readonly limits: ThrottleLimits,
  ) {
    if (!('gatewayThrottleAdmit' in redis)) {
      redis.defineCommand('gatewayThrottleAdmit', { numberOfKeys: 3, lua: ADMIT });
      redis.defineCommand('gatewayThrottleFailure', { numberOfKeys: 2, lua: RECORD_FAILURE });
    }
    this.redis = redis as Redis & ThrottleCommands;
  }

  async admit(request: AdmitRequest): Promise<ThrottleVerdict> {
    if (!request.subjectToFailureBlock && request.ratePerSecond <= 0) {
      return NOT_THROTTLED;
    }
    const [outcome, waitMs = 0] = await this.redis.gatewayThrottleAdmit(
      throttleKeys.merchantFailures(request.merchantId),
      throttleKeys.addressFailures(request.address),
      throttleKeys.merchantRate(request.merchantId),
      request.subjectToFailureBlock ? '1' : '0',
      this.limits.failuresPerMerchant,
      this.limits.failuresPerAddress,
      request.ratePerSecond,
    );
    if (outcome === 1) return throttled('AUTHENTICATION_FAILURES', waitMs);
    if (outcome === 2) return throttled('RATE_LIMIT', waitMs);
    return NOT_THROTTLED;
  }

  async recordFailure(failure: FailedAuthentication): Promise<ThrottleVerdict> {
    const waitMs = await this.redis.gatewayThrottleFailure(
      // Without a merchant the first key is not touched (ARGV[1] = 0); any name will do.
      throttleKeys.merchantFailures(failure.merchantId ?? ''),
      throttleKeys.addressFailures(failure.address),
      failure.merchantId === undefined ? '0' : '1',
      this.limits.failuresPerMerchant,
      this.limits.failuresPerAddress,
      this.limits.failureWindowMs,
      this.limits.blockMs,
    );
    return waitMs > 0 ? throttled('AUTHENTICATION_FAILURES', waitMs) : NOT_THROTTLED;
  }
}
