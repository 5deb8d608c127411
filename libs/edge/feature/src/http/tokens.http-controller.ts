import { Controller, Header, HttpCode, Inject, Param, Put, Req, UseGuards } from '@nestjs/common';
import {
  checkTokenId,
  DispatchTokenOperation,
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

@Controller('api/rest/version/:version/merchant/:merchantId/token')
@UseGuards(MerchantAuthGuard)
export class TokensHttpController {
  constructor(
    private readonly path: ApiPath,
    private readonly dispatch: DispatchTokenOperation,
    @Inject(JSON_BODY_LIMITS) private readonly bodyLimits: JsonBodyLimits,
  ) {}

  /** Create or update token. */
  @Put(':tokenId')
  @HttpCode(201)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async put(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('tokenId') rawTokenId: string,
  ): Promise<string> {
    const { version, merchant } = this.path.merchantScope(request, rawVersion, rawMerchantId);
    const tokenId = checkTokenId(rawTokenId);
    const body = parseJsonBody(request.body, this.bodyLimits);
    const correlationId = correlationIdOf(request, body);
    request.apiOperation = 'TOKEN';
    const reply = await this.dispatch.execute({
      merchant: toMerchantContext(merchant),
      authMethod: request.authenticated!.method,
      apiVersion: version,
      requestId: request.requestId,
      tokenId,
      body,
    });
    request.apiResult = typeof reply.result === 'string' ? reply.result : undefined;
    return renderResponse(reply, { merchantId: merchant.id, version, correlationId });
  }
}
