export * from './infra';
export * from './test-cards';
export * from './database';
