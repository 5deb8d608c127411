export * from './lock';
export * from './memory-lock.service';
export * from './redis-lock.service';
