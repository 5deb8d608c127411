export * from './operation.messages';
export * from './ledger.messages';
export * from './card-custody.messages';
export * from './provider-refund.messages';
export * from './retrieval.messages';
export * from './payer-journey.messages';
export * from './card-verification.messages';
export * from './expired-payment.messages';
