export * from './browser-payment.config';
export * from './browser-payment.module';
export * from './operator-commands';
export * from './payer-data.command';
