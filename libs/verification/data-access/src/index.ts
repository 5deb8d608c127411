export * from './verification.schema';
