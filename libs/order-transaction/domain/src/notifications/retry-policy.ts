export interface RetryPolicy {
  /** Delay after the first failed attempt; doubles with each further one. */
  baseDelayMs: number;
  /** Longest delay between two attempts. */
  maxDelayMs: number;
  /** Retries go on at least this long after the window started; then the notification FAILs. */
  windowMs: number;
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
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  const delay = step / 2 + random() * (step / 2);
  return { status: 'PENDING', nextAttemptAt: new Date(now.getTime() + Math.ceil(delay)) };
}
