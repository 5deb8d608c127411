import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { EDGE_SCHEMA } from '@gateway/edge/data-access';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import type { ServiceSchema } from '@gateway/platform';
import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';
import { VERIFICATION_SCHEMA } from '@gateway/verification/data-access';

/** Every service's schema, with its entities and migrations: what the schema-wide checks go through. */
export const SERVICE_SCHEMAS: ServiceSchema[] = [
  EDGE_SCHEMA,
  TOKEN_VAULT_SCHEMA,
  ORDER_TRANSACTION_SCHEMA,
  BROWSER_PAYMENT_SCHEMA,
  VERIFICATION_SCHEMA,
];
