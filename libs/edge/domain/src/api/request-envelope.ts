import type { AuthMethod, MerchantContext, RequestEnvelope } from '@gateway/contracts';

/** Who is asking, as the edge knows it once the request is authenticated. */
export interface RequestContext {
  merchant: MerchantContext;
  authMethod: AuthMethod;
  apiVersion: number;
  requestId: string;
}

/** The envelope of a message the edge sends for a request (no lock: no fencing token). */
export function envelopeOf(context: RequestContext): RequestEnvelope {
  return {
    merchant: context.merchant,
    apiVersion: context.apiVersion,
    requestId: context.requestId,
    authMethod: context.authMethod,
  };
}
