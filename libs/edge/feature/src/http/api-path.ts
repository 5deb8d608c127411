import { Inject, Injectable } from '@nestjs/common';
import { checkMerchantId, checkVersion, invalidCredentials, RequestContext, toMerchantContext, VersionRange } from '@gateway/edge/domain';
import { ApiRequest } from './api-request';

export const VERSION_RANGE = Symbol('VERSION_RANGE');

/**
 * After the credentials (MerchantAuthGuard): the version and merchant id in the path (400 when
 * malformed), then the path's merchant must be the authenticated one (401, like any credential
 * problem). Only then are the path's other ids looked at, by the route: a caller holding another
 * merchant's credentials learns nothing about them (docs/decisions/order-of-checks-for-the-path-merchant.md).
 */
@Injectable()
export class ApiPath {
  constructor(@Inject(VERSION_RANGE) private readonly versions: VersionRange) {}

  /** Who is asking, for the path's merchant: what every use case and every message envelope is given. */
  requestContext(request: ApiRequest, rawVersion: string, rawMerchantId: string): RequestContext {
    const version = checkVersion(rawVersion, this.versions);
    const merchantId = checkMerchantId(rawMerchantId);
    const authenticated = request.authenticated;
    if (!authenticated || authenticated.merchant.id !== merchantId) {
      throw invalidCredentials();
    }
    return {
      merchant: toMerchantContext(authenticated.merchant),
      authMethod: authenticated.method,
      apiVersion: version,
      requestId: request.requestId,
    };
  }
}
