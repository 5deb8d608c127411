import type { FastifyRequest } from 'fastify';
import type { AuthenticatedMerchant } from '@gateway/edge/domain';
import type { RequestContext } from '@gateway/platform';

/** A request as the edge's hooks and guard leave it for the controllers. */
export interface ApiRequest extends FastifyRequest {
  requestId: string;
  /** What every log line of this request carries (request id, merchant, correlationId). */
  logContext: RequestContext;
  authenticated?: AuthenticatedMerchant;
  /** For metrics and access logs: the apiOperation (or resource operation) served. */
  apiOperation?: string;
  /** For metrics: the `result` of the response body. */
  apiResult?: string;
}
