export * from './order-transaction.config';
export * from './order-transaction.module';
export * from './notifications.command';
export * from './operator-commands';
export * from './transactions.command';
export * from './unknown-reconciler';
export * from './abandoned-reservation-sweeper';
export * from './payer-data.command';
