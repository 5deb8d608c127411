import type { ServiceSchema } from '@gateway/platform';
import { MerchantEntity } from './merchant.entity';
import { CreateMerchants1763740000000 } from './migrations/1763740000000-create-merchants';
import { NotifyMerchantChanges1765000000000 } from './migrations/1765000000000-notify-merchant-changes';
import { NotifyMerchantsTruncated1765100000000 } from './migrations/1765100000000-notify-merchants-truncated';

/** The `edge` schema: merchant profiles and credentials, owned by api-edge. */
export const EDGE_SCHEMA: ServiceSchema = {
  schema: 'edge',
  entities: [MerchantEntity],
  migrations: [CreateMerchants1763740000000, NotifyMerchantChanges1765000000000, NotifyMerchantsTruncated1765100000000],
};
