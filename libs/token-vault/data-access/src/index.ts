export * from './token-vault.schema';
