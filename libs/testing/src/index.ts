export * from './infra';
export * from './test-cards';
export * from './database';
export * from './test-pki';
