import {
  OrderApiOperation,
  OrderOperationMessage,
  OrderOperationRequests,
  SaveTokenRequest,
  TokenOperationMessage,
  validateOrderOperationRequest,
  validateTokenRequest,
} from '@gateway/contracts';
import { parseMessage } from './parse-message';

export interface ReceivedOrderOperation<K extends OrderApiOperation> {
  message: OrderOperationMessage;
  /** The body as the operation's typed request class, re-validated field by field. */
  request: OrderOperationRequests[K];
}

export interface ReceivedTokenOperation {
  message: TokenOperationMessage;
  request: SaveTokenRequest;
}

/**
 * Service side of an order operation: the envelope and framing are checked first (a fault
 * between our processes: SERVER_FAILED), then the body again with the same request class the
 * edge used (a merchant error: 400 INVALID_FIELD), so a use case never sees an unvalidated body
 * whatever sent the message. A body for another operation is refused (apiOperation INVALID).
 *
 *   @MessagePattern(SUBJECTS.orderTransaction.verify)
 *   verify(@Payload() data: unknown) {
 *     const { message, request } = parseOrderOperationMessage(data, 'VERIFY');
 *     return this.verifyCard.execute(message.envelope, message.orderId, message.transactionId, request);
 *   }
 */
export function parseOrderOperationMessage<K extends OrderApiOperation>(data: unknown, apiOperation: K): ReceivedOrderOperation<K> {
  const message = parseMessage(OrderOperationMessage, data);
  return { message, request: validateOrderOperationRequest(apiOperation, message.body) };
}

/** Service side of create or update token: see parseOrderOperationMessage. */
export function parseTokenOperationMessage(data: unknown): ReceivedTokenOperation {
  const message = parseMessage(TokenOperationMessage, data);
  return { message, request: validateTokenRequest(message.body) };
}
