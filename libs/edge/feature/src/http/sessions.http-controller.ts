import { Controller, Get, Header, HttpCode, Inject, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import {
  checkSessionId,
  CreateSession,
  JSON_BODY_LIMITS,
  JsonBodyLimits,
  parseJsonBody,
  RequestContext,
  RetrieveSession,
  UpdateSession,
  unmaskRequestedInQuery,
} from '@gateway/edge/domain';
import { ApiPath } from './api-path';
import { ApiRequest } from './api-request';
import { correlationIdOf, JSON_CONTENT_TYPE, respond } from './http-conventions';
import { MerchantAuthGuard } from './merchant-auth.guard';

/**
 * Payment sessions (beyond the order operations, as the real gateway has them; docs/sessions.md):
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
    const correlationId = correlationIdOf(request, body);
    return respond(request, context, await this.createSession.execute({ ...context, body }), correlationId);
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
    const correlationId = correlationIdOf(request, body);
    return respond(request, context, await this.updateSession.execute({ ...context, sessionId, body }), correlationId);
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
    return respond(request, context, await this.retrieveSession.execute(context, sessionId, unmask));
  }

  /** The request's context, and the operation the access log names for it. */
  private context(request: ApiRequest, rawVersion: string, rawMerchantId: string, operation: string): RequestContext {
    const context = this.path.requestContext(request, rawVersion, rawMerchantId);
    request.apiOperation = operation;
    return context;
  }
}

function isEmpty(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '') || (raw instanceof Uint8Array && raw.length === 0);
}
