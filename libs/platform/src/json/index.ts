export * from './sorted-json';
