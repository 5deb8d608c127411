/**
 * The distributed profile's databases: the schema each app owns, and the variable that holds
 * its connection URL (with its own role) where one process needs several of them: the
 * migration Job's provisioning step, which creates each role and its schema. Each service's
 * data-access lib declares the same schema name in its ServiceSchema (a test keeps them equal).
 */
export const SERVICE_DATABASES = [
  { app: 'api-edge', schema: 'edge', urlVariable: 'EDGE_DATABASE_URL' },
  { app: 'token-vault', schema: 'token_vault', urlVariable: 'TOKEN_VAULT_DATABASE_URL' },
  { app: 'order-transaction', schema: 'order_transaction', urlVariable: 'ORDER_TRANSACTION_DATABASE_URL' },
  { app: 'browser-payment', schema: 'browser_payment', urlVariable: 'BROWSER_PAYMENT_DATABASE_URL' },
  { app: 'verification', schema: 'verification', urlVariable: 'VERIFICATION_DATABASE_URL' },
] as const;

export type ServiceDatabase = (typeof SERVICE_DATABASES)[number];
