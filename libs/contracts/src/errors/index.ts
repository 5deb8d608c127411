export * from './error-catalogue';
export * from './gateway-error';
