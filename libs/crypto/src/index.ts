export * from './api-password';
export * from './envelope';
export * from './fingerprint';
export * from './luhn';
export * from './secret';
