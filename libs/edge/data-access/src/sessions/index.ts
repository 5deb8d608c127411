export * from './session-store';
export * from './redis-session-store';
export * from './memory-session-store';
