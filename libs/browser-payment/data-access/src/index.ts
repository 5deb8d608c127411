export * from './browser-payment.schema';
export * from './payment-columns';
export * from './browser-payment.entity';
export * from './simulated-provider-payment.entity';
export * from './simulated-provider-refund.entity';
export * from './provider-refund.entity';
export * from './browser-payment.repository';
export * from './simulated-provider.repository';
