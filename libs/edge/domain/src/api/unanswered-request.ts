import { GatewayError } from '@gateway/contracts';
import { UnansweredError } from '@gateway/platform';

/**
 * The answer to a request that changes something at its service. Only its own timeout (or a
 * connection closed after the send: UnansweredError) may have left it running there, so that one
 * becomes SERVER_BUSY with `explanation`, which tells the merchant what may still have been done.
 * A refusal unprocessed keeps the plain explanation: nothing was done
 * (docs/decisions/operation-deadline.md, "What the merchant sees").
 */
export async function answerOrWarn<T>(request: () => Promise<T>, explanation: string): Promise<T> {
  try {
    return await request();
  } catch (err) {
    if (err instanceof UnansweredError) {
      throw new GatewayError('SERVER_BUSY', { explanation, retryAfterSeconds: err.retryAfterSeconds });
    }
    throw err;
  }
}
