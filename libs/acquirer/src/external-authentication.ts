import type { ExternalAuthentication as RequestAuthentication } from '@gateway/contracts';
import type { ExternalAuthentication } from './acquirer-requests';

/**
 * The request's `authentication` group (3-D Secure performed elsewhere) as the acquirer is
 * told it, for every operation that asks the issuer (VERIFY, AUTHORIZE, PAY).
 */
export function externalAuthenticationOf(authentication: RequestAuthentication | undefined): ExternalAuthentication | undefined {
  if (!authentication) {
    return undefined;
  }
  return {
    ...(authentication['3ds'] ? { threeDs: authentication['3ds'] } : {}),
    ...(authentication['3ds2'] ? { threeDs2: authentication['3ds2'] } : {}),
    ...(authentication.transactionId !== undefined ? { transactionId: authentication.transactionId } : {}),
  };
}
