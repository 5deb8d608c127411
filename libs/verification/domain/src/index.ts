export * from './verify-card-for-token/verify-card-for-token.use-case';
