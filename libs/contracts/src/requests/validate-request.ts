import { checkRequest, FieldProblem, invalidValue, RequestClass } from '@gateway/api-fields';
import { GatewayError } from '../errors';
import { JsonObject } from '../messages';
import { isOrderApiOperation, ORDER_API_OPERATIONS, OrderApiOperation } from '../subjects';
import { ConfirmBrowserPaymentRequest, InitiateBrowserPaymentRequest } from './browser-payment.requests';
import { AuthorizeRequest, CaptureRequest, PayRequest, VoidRequest } from './card-payment.requests';
import { RefundRequest } from './refund.request';
import { SaveTokenRequest } from './save-token.request';
import { SessionUpdateRequest } from './session.request';
import { VerifyRequest } from './verify.request';

/**
 * The request classes of the order and token operations, and the functions the edge and the services
 * validate request bodies with. Both sides use the same classes, so a service's use case only
 * ever sees a body that passed every field type and every stateless cross-field rule.
 */
export const ORDER_OPERATION_REQUESTS = {
  VERIFY: VerifyRequest,
  REFUND: RefundRequest,
  INITIATE_BROWSER_PAYMENT: InitiateBrowserPaymentRequest,
  CONFIRM_BROWSER_PAYMENT: ConfirmBrowserPaymentRequest,
  AUTHORIZE: AuthorizeRequest,
  PAY: PayRequest,
  CAPTURE: CaptureRequest,
  VOID: VoidRequest,
} as const satisfies Record<OrderApiOperation, RequestClass>;

export type OrderOperationRequests = { [K in OrderApiOperation]: InstanceType<(typeof ORDER_OPERATION_REQUESTS)[K]> };
export type OrderOperationRequest = OrderOperationRequests[OrderApiOperation];

/**
 * The body as an instance of `target`, or GatewayError INVALID_FIELD (400) naming the first
 * problem: error.field, validationType (INVALID, MISSING, UNSUPPORTED) and an explanation that
 * never echoes a sensitive value. Order of problems: docs/decisions/request-validation-order.md.
 */
export function validateRequest<T>(target: RequestClass<T>, body: unknown): T {
  const result = checkRequest(target, body);
  if (result instanceof FieldProblem) {
    throw result.field
      ? GatewayError.invalidField(result.field, result.validationType, result.explanation)
      : GatewayError.invalidRequest(result.explanation);
  }
  return result;
}

/**
 * An order operation's body (`PUT .../order/{orderid}/transaction/{transactionid}`).
 * The edge calls it with the operation read from the body (readApiOperation); a service calls
 * it with the operation it serves, so a body for another operation is refused
 * (`apiOperation` INVALID).
 */
export function validateOrderOperationRequest<K extends OrderApiOperation>(apiOperation: K, body: unknown): OrderOperationRequests[K] {
  // The order of checks puts apiOperation before every other field (ARCHITECTURE 4.3).
  const given = typeof body === 'object' && body !== null ? (body as JsonObject).apiOperation : undefined;
  if (given !== apiOperation) {
    throw apiOperationProblem(given, [apiOperation]);
  }
  return validateRequest(ORDER_OPERATION_REQUESTS[apiOperation] as RequestClass<OrderOperationRequests[K]>, body);
}

/** Create or update token (`PUT .../token/{tokenid}`): `apiOperation` is UNSUPPORTED here. */
export function validateTokenRequest(body: unknown): SaveTokenRequest {
  return validateRequest(SaveTokenRequest, body);
}

/** Create or update a payment session (`POST .../session`, `PUT .../session/{sessionid}`). */
export function validateSessionRequest(body: unknown): SessionUpdateRequest {
  return validateRequest(SessionUpdateRequest, body);
}

/**
 * Reads `apiOperation` from an order operation body: MISSING when absent, INVALID when it is
 * not one of the operations this gateway serves on that path.
 */
export function readApiOperation(body: JsonObject): OrderApiOperation {
  const value = body.apiOperation;
  if (!isOrderApiOperation(value)) {
    throw apiOperationProblem(value, ORDER_API_OPERATIONS);
  }
  return value;
}

function apiOperationProblem(value: unknown, expected: readonly string[]): GatewayError {
  if (value === undefined) {
    return GatewayError.invalidField('apiOperation', 'MISSING', 'Missing parameter apiOperation.');
  }
  const problem = invalidValue('apiOperation', value, `must be ${expected.length > 1 ? 'one of ' : ''}${expected.join(', ')}`);
  return GatewayError.invalidField(problem.field, problem.validationType, problem.explanation);
}
