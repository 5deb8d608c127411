export * from './order-transaction.schema';
export * from './order.entity';
export * from './transaction.entity';
export * from './operation-response.entity';
export * from './ledger-rows';
export * from './ledger.repository';
export * from './notification.entity';
export * from './notification-outbox.repository';
