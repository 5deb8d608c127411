export * from './sorted-json';
export * from './request-hash';
