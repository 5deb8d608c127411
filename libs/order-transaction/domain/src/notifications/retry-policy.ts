export interface RetryPolicy {
  /** Delay after the first failed attempt; doubles with each further one. */
  baseDelayMs: number;
  /** Longest delay between two attempts. */
  maxDelayMs: number;
  /** Retries go on at least this long after the window started; then the notification FAILs. */
  windowMs: number;
}

/** Doublings a backoff step stops at: 2^40 times any base is past every maximum, and still a finite number. */
const MAX_DOUBLINGS = 40;

/** The n-th step (from 1) of the backoff: `baseDelayMs` doubled n - 1 times, at most `maxDelayMs`. */
export function backoffStep(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, n: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(n - 1, 0), MAX_DOUBLINGS));
}

export type AfterFailure = { status: 'PENDING'; nextAttemptAt: Date } | { status: 'FAILED' };

/**
 * Exponential backoff with "equal jitter": the n-th failure waits between half and all of
 * min(max, base x 2^(n-1)), so receivers coming back after an outage are not hit by every
 * dispatcher's retries at the same instant, and no wait is shorter than half its step.
 * A notification fails only on an attempt made once the window has passed, so the last
 * attempt is never earlier than the window's end: retries last at least `windowMs`.
 */
export function afterFailedAttempt(
  policy: RetryPolicy,
  attempts: number,
  windowStartedAt: Date,
  now: Date,
  random: () => number = Math.random,
): AfterFailure {
  if (now.getTime() - windowStartedAt.getTime() >= policy.windowMs) {
    return { status: 'FAILED' };
  }
  const step = backoffStep(policy, attempts);
  const delay = step / 2 + random() * (step / 2);
  return { status: 'PENDING', nextAttemptAt: new Date(now.getTime() + Math.ceil(delay)) };
}
