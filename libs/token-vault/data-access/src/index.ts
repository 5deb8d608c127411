export * from './data-key.entity';
export * from './data-key.repository';
export * from './token.entity';
export * from './token.repository';
export * from './token-vault.schema';
