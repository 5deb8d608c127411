export * from './operation.messages';
