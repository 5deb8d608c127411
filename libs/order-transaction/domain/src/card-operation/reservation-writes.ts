import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '@gateway/contracts';
import { isDatabaseUnavailable, NotDeliveredError } from '@gateway/platform';

/** A write after the side effect (a completion, a release) that failed for another reason is tried this often. */
const WRITE_ATTEMPTS = 3;

/**
 * How long such a write keeps being tried while the database is unavailable (isDatabaseUnavailable:
 * refused, reset or dropped connections, the server shutting down or starting): a Postgres restart
 * or failover, which takes seconds to tens of seconds, not the 300 ms three attempts last. Giving
 * up leaves money that moved recorded nowhere but in a log line. It must fit in the shutdown
 * grace (SHUTDOWN_GRACE_MS), which the message server's drain waits for a handler to finish in,
 * after the operation's own calls before it (the vault's 5 s, a reversal's 3 s): a process
 * stopped with less while its database is away may exit first, leaving the reservation PENDING.
 * OrderTransactionConfig refuses to start a ledger whose grace is too short
 * (shutdownGraceNeeded).
 */
export const DATABASE_UNAVAILABLE_WINDOW_MS = 25_000;

/** The pause after a first failed try; it doubles after each further one. */
const FIRST_PAUSE_MS = 100;

/** The longest pause between two tries while the database is unavailable. */
const MAX_PAUSE_MS = 2_000;

export interface WriteAfterSideEffectOptions {
  /** DATABASE_UNAVAILABLE_WINDOW_MS unless given (tests). */
  unavailableWindowMs?: number;
}

/**
 * A ledger write that follows a side effect, whose failure would leave the reservation
 * PENDING: a completion (money has moved, or may have) or a release (nothing moved, the
 * amount is still held). A transient failure is retried with a growing back-off: while the
 * database is unavailable, for up to DATABASE_UNAVAILABLE_WINDOW_MS; anything else (a
 * serialization failure, a fault) WRITE_ATTEMPTS times. A GatewayError is a rule's refusal and
 * final. A retry after an attempt that committed but whose answer was lost finds its own write
 * (RecordOperation answers a completion that landed with its stored response). `gaveUp` is
 * told the last error before it is thrown, to log what must be reconciled.
 */
export async function writeAfterSideEffect<T>(
  write: () => Promise<T>,
  gaveUp: (err: unknown) => void,
  options: WriteAfterSideEffectOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.unavailableWindowMs ?? DATABASE_UNAVAILABLE_WINDOW_MS);
  // Counted apart from the database's absences: a first serialization failure once the database
  // is back must not end a write that has spent its attempts waiting for it.
  let otherFailures = 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (err) {
      const unavailable = isDatabaseUnavailable(err);
      otherFailures += unavailable ? 0 : 1;
      const retry = unavailable ? Date.now() < deadline : otherFailures < WRITE_ATTEMPTS && !(err instanceof GatewayError);
      if (!retry) {
        gaveUp(err);
        throw err;
      }
      const pause = Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), MAX_PAUSE_MS);
      await sleep(unavailable ? Math.max(0, Math.min(pause, deadline - Date.now())) : pause);
    }
  }
}

/**
 * Errors after which nothing can have happened: the request was never delivered, or was
 * refused (4xx) before its side effect. Anything else may have moved money.
 */
export function hadNoEffect(err: unknown): boolean {
  return err instanceof NotDeliveredError || (err instanceof GatewayError && err.httpStatus < 500);
}
