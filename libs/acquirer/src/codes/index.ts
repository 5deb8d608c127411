export * from './gateway-codes';
export * from './verification-codes';
