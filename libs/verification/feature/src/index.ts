export * from './verification.config';
export * from './verification.module';
