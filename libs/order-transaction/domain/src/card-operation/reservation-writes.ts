import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '@gateway/contracts';
import { NotDeliveredError } from '@gateway/platform';

/** A write after the side effect (a completion, a release) is tried this often. */
const WRITE_ATTEMPTS = 3;

/**
 * A ledger write that follows a side effect, whose failure would leave the reservation
 * PENDING: a completion (money has moved, or may have) or a release (nothing moved, the
 * amount is still held). A transient failure (a dropped connection, a busy database) is
 * retried with a short back-off; a GatewayError is a rule's refusal and final. `gaveUp` is
 * told the last error before it is thrown, to log what must be reconciled.
 */
export async function writeAfterSideEffect<T>(write: () => Promise<T>, gaveUp: (err: unknown) => void): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= WRITE_ATTEMPTS || err instanceof GatewayError) {
        gaveUp(err);
        throw err;
      }
      await sleep(100 * attempt);
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
