import { Inject, Injectable } from '@nestjs/common';
import { MerchantEntity } from '@gateway/edge/data-access';
import { checkMerchantId, checkVersion, invalidCredentials, VersionRange } from '@gateway/edge/domain';
import { ApiRequest } from './api-request';

export const VERSION_RANGE = Symbol('VERSION_RANGE');

export interface MerchantScope {
  version: number;
  merchant: MerchantEntity;
}

/**
 * After the credentials: the version and merchant id in the path (400 when malformed), then
 * the path's merchant must be the authenticated one (401, like any credential problem).
 */
@Injectable()
export class ApiPath {
  constructor(@Inject(VERSION_RANGE) private readonly versions: VersionRange) {}

  merchantScope(request: ApiRequest, rawVersion: string, rawMerchantId: string): MerchantScope {
    const version = checkVersion(rawVersion, this.versions);
    const merchantId = checkMerchantId(rawMerchantId);
    const authenticated = request.authenticated;
    if (!authenticated || authenticated.merchant.id !== merchantId) {
      throw invalidCredentials();
    }
    return { version, merchant: authenticated.merchant };
  }
}
