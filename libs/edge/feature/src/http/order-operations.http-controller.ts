import { Controller, Header, HttpCode, Inject, Param, Put, Req, UseGuards } from '@nestjs/common';
import {
  checkOrderId,
  checkTransactionId,
  DispatchOrderOperation,
  JSON_BODY_LIMITS,
  JsonBodyLimits,
  parseJsonBody,
  renderResponse,
  toMerchantContext,
} from '@gateway/edge/domain';
import { ApiPath } from './api-path';
import { ApiRequest } from './api-request';
import { correlationIdOf, JSON_CONTENT_TYPE } from './http-conventions';
import { MerchantAuthGuard } from './merchant-auth.guard';

@Controller('api/rest/version/:version/merchant/:merchantId/order/:orderId/transaction/:transactionId')
@UseGuards(MerchantAuthGuard)
export class OrderOperationsHttpController {
  constructor(
    private readonly path: ApiPath,
    private readonly dispatch: DispatchOrderOperation,
    @Inject(JSON_BODY_LIMITS) private readonly bodyLimits: JsonBodyLimits,
  ) {}

  /** VERIFY, REFUND, INITIATE_BROWSER_PAYMENT, CONFIRM_BROWSER_PAYMENT, told apart by `apiOperation`. */
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
    const { version, merchant } = this.path.merchantScope(request, rawVersion, rawMerchantId);
    const orderId = checkOrderId(rawOrderId);
    const transactionId = checkTransactionId(rawTransactionId);
    const body = parseJsonBody(request.body, this.bodyLimits);
    const correlationId = correlationIdOf(request, body);
    const result = await this.dispatch.execute({
      merchant: toMerchantContext(merchant),
      authMethod: request.authenticated!.method,
      apiVersion: version,
      requestId: request.requestId,
      orderId,
      transactionId,
      body,
    });
    request.apiOperation = result.apiOperation;
    request.apiResult = typeof result.body.result === 'string' ? result.body.result : undefined;
    return renderResponse(result.body, { merchantId: merchant.id, version, correlationId });
  }
}
