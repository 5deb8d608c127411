export * from './api-password';
export * from './card-number-masking';
export * from './envelope';
export * from './fingerprint';
export * from './luhn';
export * from './secret';
