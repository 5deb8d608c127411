export * from './api-password';
