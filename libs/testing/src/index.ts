export * from './infra';
export * from './test-cards';
export * from './database';
export * from './vault-keys';
export * from './schema-dump';
export * from './tls-certificates';
export * from './webhook-receiver';
export * from './test-pki';
