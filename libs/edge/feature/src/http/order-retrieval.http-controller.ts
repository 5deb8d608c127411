import { Controller, Get, Header, HttpCode, Param, Req, UseGuards } from '@nestjs/common';
import { checkOrderId, checkTransactionId, DispatchOrderRetrieval, unmaskRequestedInQuery } from '@gateway/edge/domain';
import { ApiPath } from './api-path';
import { ApiRequest } from './api-request';
import { JSON_CONTENT_TYPE, respond } from './http-conventions';
import { MerchantAuthGuard } from './merchant-auth.guard';

/**
 * Retrieval: the order with its transactions, or one transaction, as the ledger
 * holds them. 200; an unknown order or transaction is a 404 in the API's error shape
 * (docs/decisions/order-retrieval.md).
 */
@Controller('api/rest/version/:version/merchant/:merchantId/order/:orderId')
@UseGuards(MerchantAuthGuard)
export class OrderRetrievalHttpController {
  constructor(
    private readonly path: ApiPath,
    private readonly retrieve: DispatchOrderRetrieval,
  ) {}

  @Get()
  @HttpCode(200)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  order(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('orderId') rawOrderId: string,
  ): Promise<string> {
    return this.serve(request, 'RETRIEVE_ORDER', rawVersion, rawMerchantId, rawOrderId);
  }

  @Get('transaction/:transactionId')
  @HttpCode(200)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  transaction(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('orderId') rawOrderId: string,
    @Param('transactionId') rawTransactionId: string,
  ): Promise<string> {
    return this.serve(request, 'RETRIEVE_TRANSACTION', rawVersion, rawMerchantId, rawOrderId, rawTransactionId);
  }

  private async serve(
    request: ApiRequest,
    operation: string,
    rawVersion: string,
    rawMerchantId: string,
    rawOrderId: string,
    rawTransactionId?: string,
  ): Promise<string> {
    const context = this.path.requestContext(request, rawVersion, rawMerchantId);
    const orderId = checkOrderId(rawOrderId);
    const transactionId = rawTransactionId === undefined ? undefined : checkTransactionId(rawTransactionId);
    request.apiOperation = operation;
    // The ledger keeps card numbers masked only: an allowed UNMASK has no full number to show,
    // a refused one is still the 400 (docs/decisions/unmasking.md).
    unmaskRequestedInQuery(request.url, context.merchant, context.authMethod);
    return respond(request, context, await this.retrieve.execute({ ...context, orderId, transactionId }));
  }
}
