import { Controller, Header, HttpCode, Inject, Param, Put, Req, UseGuards } from '@nestjs/common';
import { checkOrderId, checkTransactionId, DispatchOrderOperation, JSON_BODY_LIMITS, JsonBodyLimits, parseJsonBody } from '@gateway/edge/domain';
import { ApiPath } from './api-path';
import { ApiRequest } from './api-request';
import { correlationIdOf, JSON_CONTENT_TYPE, respond } from './http-conventions';
import { MerchantAuthGuard } from './merchant-auth.guard';

/**
 * The order operations (contracts' ORDER_OPERATION_SUBJECTS: VERIFY, AUTHORIZE, PAY, CAPTURE,
 * REFUND, VOID, and the browser payment's INITIATE and CONFIRM), told apart by `apiOperation`.
 * A request meets its checks in this order, and the first problem found is its answer
 * (ARCHITECTURE 4.3):
 * 1. configureEdgeHttp, before any route: the URL's length (onRequest hook), the body's coding
 *    (content parser), a slot under EDGE_MAX_IN_FLIGHT (preValidation hook: admission);
 * 2. MerchantAuthGuard: the credentials, a disabled merchant, the throttle;
 * 3. `put` below: version and merchant id, the path's merchant against the credentials
 *    (ApiPath), the order and transaction ids, the body as JSON;
 * 4. DispatchOrderOperation: a named session's values, `apiOperation` and the fields, UNMASK, the
 *    notification URL; then the order's lock and the send to the service that owns the operation.
 * The access log line and the latency metric (configureEdgeHttp's onResponse hook) then name the
 * operation and the result this route noted on the request.
 */
@Controller('api/rest/version/:version/merchant/:merchantId/order/:orderId/transaction/:transactionId')
@UseGuards(MerchantAuthGuard)
export class OrderOperationsHttpController {
  constructor(
    private readonly path: ApiPath,
    private readonly dispatch: DispatchOrderOperation,
    @Inject(JSON_BODY_LIMITS) private readonly bodyLimits: JsonBodyLimits,
  ) {}

  @Put()
  @HttpCode(201)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async put(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('orderId') rawOrderId: string,
    @Param('transactionId') rawTransactionId: string,
  ): Promise<string> {
    const context = this.path.requestContext(request, rawVersion, rawMerchantId);
    const orderId = checkOrderId(rawOrderId);
    const transactionId = checkTransactionId(rawTransactionId);
    const body = parseJsonBody(request.body, this.bodyLimits);
    const correlationId = correlationIdOf(request, body);
    const result = await this.dispatch.execute({ ...context, orderId, transactionId, body });
    request.apiOperation = result.apiOperation;
    return respond(request, context, result.body, correlationId);
  }
}
