export * from './config-decorators';
export * from './load-config';
export * from './platform.config';
