export * from './edge.schema';
export * from './merchant.entity';
export * from './merchant-changes';
export * from './merchant.repository';
export * from './throttle/request-throttle';
export * from './throttle/memory-request-throttle';
export * from './throttle/redis-request-throttle';
export * from './sessions';
