export * from './operation.messages';
export * from './ledger.messages';
