import { JsonObject } from '@gateway/contracts';
import { renderResponse, RequestContext } from '@gateway/edge/domain';
import { ApiRequest } from './api-request';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * `correlationId` is transient: not stored, returned as sent. The edge's log lines for the
 * request carry it too, so a merchant's id for a call finds our logs. Routes call this right
 * after parsing the body, before their use case can refuse or fail the request: the access log
 * line of a 400 or a 500 carries it as well.
 */
export function correlationIdOf(request: ApiRequest, body: JsonObject): string | undefined {
  if (typeof body.correlationId !== 'string') {
    return undefined;
  }
  request.logContext.correlationId = body.correlationId.slice(0, 100);
  return body.correlationId;
}

/**
 * A route's answer: the body's `result` noted for the access log and the latency metric, and the
 * body rendered with the fields every response carries (merchant, version, the echoed
 * correlationId).
 */
export function respond(request: ApiRequest, context: RequestContext, body: JsonObject, correlationId?: string): string {
  request.apiResult = typeof body.result === 'string' ? body.result : undefined;
  return renderResponse(body, { merchantId: context.merchant.id, version: context.apiVersion, correlationId });
}

/**
 * The API's paths and the methods each serves, for telling an unknown path (404) from a known
 * path called with another method (405, with an Allow header).
 */
export const API_ROUTES: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/order\/[^/]+\/transaction\/[^/]+$/, methods: ['GET', 'PUT'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/order\/[^/]+$/, methods: ['GET'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/token\/[^/]+$/, methods: ['PUT', 'GET', 'DELETE'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/token$/, methods: ['POST'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/session\/[^/]+$/, methods: ['PUT', 'GET'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/session$/, methods: ['POST'] },
  // The payer's browser-payment pages (payer-pages.http-controller.ts).
  { pattern: /^\/bpui\/[^/]+\/(out|in)\/[^/]+$/, methods: ['GET'] },
  { pattern: /^\/bpui\/[^/]+\/out\/[^/]+\/[^/]+$/, methods: ['POST'] },
];
