export * from './standalone.config';
export * from './standalone-state';
