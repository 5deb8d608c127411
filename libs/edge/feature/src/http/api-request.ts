import type { FastifyRequest } from 'fastify';
import type { AuthenticatedMerchant } from '@gateway/edge/domain';

/** A request as the edge's hooks and guard leave it for the controllers. */
export interface ApiRequest extends FastifyRequest {
  requestId: string;
  authenticated?: AuthenticatedMerchant;
  /** For metrics and access logs: the apiOperation (or resource operation) served. */
  apiOperation?: string;
  /** For metrics: the `result` of the response body. */
  apiResult?: string;
}
