export * from './operation.messages';
export * from './ledger.messages';
export * from './retrieval.messages';
