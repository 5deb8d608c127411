export * from './outbound-address';
export * from './guarded-lookup';
