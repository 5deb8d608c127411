export * from './browser-payment.config';
export * from './browser-payment.module';
