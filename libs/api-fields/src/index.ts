export * from './field-type';
export * from './field-types';
export * from './field-problem';
export * from './field-decorators';
export * from './request-schema';
export * from './check-request';
export * from './response-fields';
