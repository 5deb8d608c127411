export * from './metrics';
export * from './metrics.controller';
