export * from './health.controller';
export * from './health.tokens';
export * from './readiness-checks';
