export * from './shared-groups';
export * from './order-operation-base';
export * from './save-token.request';
export * from './refund.request';
export * from './browser-payment.requests';
export * from './verify.request';
export * from './request-rules';
export * from './validate-request';
