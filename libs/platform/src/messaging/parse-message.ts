import { toMessage } from '@gateway/contracts';
import { validateSync } from 'class-validator';

export class MalformedMessageError extends Error {
  override name = 'MalformedMessageError';
}

/**
 * A message's envelope and framing come from our own edge; if they do not validate, that is
 * a fault between our processes, not a merchant error: the error is thrown as a plain Error,
 * which the RPC filter logs under a support code and answers as SERVER_FAILED. (Request bodies
 * are validated separately, field by field, with the operation's request class; their
 * problems are merchant errors.)
 */
export function parseMessage<T extends object>(messageClass: new () => T, data: unknown): T {
  const message = toMessage(messageClass, data);
  const errors = validateSync(message as object, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const properties = errors.map((e) => e.property).join(', ');
    throw new MalformedMessageError(`malformed ${messageClass.name}: ${properties}`);
  }
  return message;
}
