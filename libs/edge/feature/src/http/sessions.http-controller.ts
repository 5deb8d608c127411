import { Controller, Get, Header, HttpCode, Inject, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import { JsonObject } from '@gateway/contracts';
import {
  checkSessionId,
  CreateSession,
  JSON_BODY_LIMITS,
  JsonBodyLimits,
  parseJsonBody,
  renderResponse,
  RequestContext,
  RetrieveSession,
  toMerchantContext,
  UpdateSession,
  unmaskRequestedInQuery,
} from '@gateway/edge/domain';
import { ApiPath } from './api-path';
import { ApiRequest } from './api-request';
import { correlationIdOf, JSON_CONTENT_TYPE } from './http-conventions';
import { MerchantAuthGuard } from './merchant-auth.guard';

/**
 * Payment sessions (beyond the five operations, as the real gateway has them; docs/sessions.md):
 * create (201, body optional), update (200) and retrieve (200, card masked). Operations use a
 * session by naming `session.id`.
 */
@Controller('api/rest/version/:version/merchant/:merchantId/session')
@UseGuards(MerchantAuthGuard)
export class SessionsHttpController {
  constructor(
    private readonly path: ApiPath,
    private readonly createSession: CreateSession,
    private readonly updateSession: UpdateSession,
    private readonly retrieveSession: RetrieveSession,
    @Inject(JSON_BODY_LIMITS) private readonly bodyLimits: JsonBodyLimits,
  ) {}

  @Post()
  @HttpCode(201)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async create(@Req() request: ApiRequest, @Param('version') rawVersion: string, @Param('merchantId') rawMerchantId: string): Promise<string> {
    const context = this.context(request, rawVersion, rawMerchantId, 'CREATE_SESSION');
    // A session is usually created empty: no body is the same as `{}`.
    const body = isEmpty(request.body) ? {} : parseJsonBody(request.body, this.bodyLimits);
    return this.render(request, context, await this.createSession.execute({ ...context, body }), correlationIdOf(request, body));
  }

  @Put(':sessionId')
  @HttpCode(200)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async update(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('sessionId') rawSessionId: string,
  ): Promise<string> {
    const context = this.context(request, rawVersion, rawMerchantId, 'UPDATE_SESSION');
    const sessionId = checkSessionId(rawSessionId);
    const body = parseJsonBody(request.body, this.bodyLimits);
    const view = await this.updateSession.execute({ ...context, sessionId, body });
    return this.render(request, context, view, correlationIdOf(request, body));
  }

  @Get(':sessionId')
  @HttpCode(200)
  @Header('Content-Type', JSON_CONTENT_TYPE)
  async retrieve(
    @Req() request: ApiRequest,
    @Param('version') rawVersion: string,
    @Param('merchantId') rawMerchantId: string,
    @Param('sessionId') rawSessionId: string,
  ): Promise<string> {
    const context = this.context(request, rawVersion, rawMerchantId, 'RETRIEVE_SESSION');
    const sessionId = checkSessionId(rawSessionId);
    const unmask = unmaskRequestedInQuery(request.url, context.merchant, context.authMethod);
    return this.render(request, context, await this.retrieveSession.execute(context, sessionId, unmask));
  }

  private context(request: ApiRequest, rawVersion: string, rawMerchantId: string, operation: string): RequestContext {
    const { version, merchant } = this.path.merchantScope(request, rawVersion, rawMerchantId);
    request.apiOperation = operation;
    return { merchant: toMerchantContext(merchant), authMethod: request.authenticated!.method, apiVersion: version, requestId: request.requestId };
  }

  private render(request: ApiRequest, context: RequestContext, body: JsonObject, correlationId?: string): string {
    request.apiResult = typeof body.result === 'string' ? body.result : undefined;
    return renderResponse(body, { merchantId: context.merchant.id, version: context.apiVersion, correlationId });
  }
}

function isEmpty(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '') || (raw instanceof Uint8Array && raw.length === 0);
}
