export * from './rotate-keys.command';
export * from './token-vault.config';
export * from './token-vault.module';
export * from './vault-secrets';
