import { transportFailure } from './transport-failure';

/**
 * `work`'s outcome, or an Error named TimeoutError after `ms` (a transport failure to
 * MessageBus, as nats.js's own timeouts are: SERVER_BUSY).
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(transportFailure('TimeoutError', `${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
