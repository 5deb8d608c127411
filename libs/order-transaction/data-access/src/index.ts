export * from './order-transaction.schema';
