export * from './validate-request';
