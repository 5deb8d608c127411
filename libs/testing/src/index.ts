export * from './infra';
export * from './test-cards';
