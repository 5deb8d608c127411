import { defaultMerchantSettings } from '@gateway/contracts';
import type { MerchantEntity } from '@gateway/edge/data-access';

/** A merchant row as the edge's directory hands it out, for the domain's unit tests. */
export function merchantEntity(changes: Partial<MerchantEntity> = {}): MerchantEntity {
  return {
    id: 'SHOP1',
    name: 'Shop',
    mode: 'TEST',
    status: 'ENABLED',
    settings: defaultMerchantSettings(),
    passwordHash: 'unused',
    previousPasswordHash: null,
    previousPasswordExpiresAt: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...changes,
  };
}
