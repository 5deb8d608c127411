export * from './browser-payment.schema';
