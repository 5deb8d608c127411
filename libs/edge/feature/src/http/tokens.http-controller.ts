import { Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import {
  checkTokenId,
  DispatchTokenOperation,
  JSON_BODY_LIMITS,
  JsonBodyLimits,
  parseJsonBody,
  RequestContext,
  responseControlsFromQuery,
} from '@gateway/edge/domain';
import { unmaskRequested } from '@gateway/contracts';
import { ApiPath } from './api-path';
import { ApiRequest } from './api-request';
import { correlationIdOf, JSON_CONTENT_TYPE, respond } from './http-conventions';
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
    const context = this.path.requestContext(request, rawVersion, rawMerchantId);
    const tokenId = checkTokenId(rawTokenId);
    const body = parseJsonBody(request.body, this.bodyLimits);
    const correlationId = correlationIdOf(request, body);
    request.apiOperation = 'TOKEN';
    return respond(request, context, await this.dispatch.execute({ ...context, tokenId, body }), correlationId);
  }

  /** Beyond the spec: create a token with an id the vault generates (docs/api-extensions.md). */
  @Post()
  @HttpCode(201)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async post(@Req() request: ApiRequest, @Param('version') rawVersion: string, @Param('merchantId') rawMerchantId: string): Promise<string> {
    const context = this.context(request, rawVersion, rawMerchantId, 'CREATE_TOKEN');
    const body = parseJsonBody(request.body, this.bodyLimits);
    const correlationId = correlationIdOf(request, body);
    return respond(request, context, await this.dispatch.create({ ...context, body }), correlationId);
  }

  /** Beyond the spec: the token as stored, card data masked (`?responseControls.sensitiveData=UNMASK` shows the number). */
  @Get(':tokenId')
  @HttpCode(200)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async get(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('tokenId') rawTokenId: string,
  ): Promise<string> {
    const context = this.context(request, rawVersion, rawMerchantId, 'RETRIEVE_TOKEN');
    const tokenId = checkTokenId(rawTokenId);
    const controls = responseControlsFromQuery(request.url);
    // Refused here, before the vault is asked; the vault applies the same rule again.
    unmaskRequested(controls, context.merchant, context.authMethod);
    return respond(request, context, await this.dispatch.retrieve({ ...context, tokenId, ...controls }));
  }

  /** Beyond the spec: removes the token and its card data. */
  @Delete(':tokenId')
  @HttpCode(200)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async delete(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('tokenId') rawTokenId: string,
  ): Promise<string> {
    const context = this.context(request, rawVersion, rawMerchantId, 'DELETE_TOKEN');
    const tokenId = checkTokenId(rawTokenId);
    return respond(request, context, await this.dispatch.remove({ ...context, tokenId }));
  }

  /** The request's context, and the operation the access log names for it. */
  private context(request: ApiRequest, rawVersion: string, rawMerchantId: string, operation: string): RequestContext {
    const context = this.path.requestContext(request, rawVersion, rawMerchantId);
    request.apiOperation = operation;
    return context;
  }
}
