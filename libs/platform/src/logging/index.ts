export * from './logger';
export * from './nest-logger';
export * from './request-context';
export * from './scrub';
