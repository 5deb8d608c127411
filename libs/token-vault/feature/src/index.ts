export * from './token-vault.config';
export * from './token-vault.module';
