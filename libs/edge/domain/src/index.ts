export * from './api/api-response';
export * from './api/parse-json-body';
export * from './api/path-identifiers';
export * from './authenticate-merchant/authenticate-merchant.use-case';
export * from './merchants/merchant-directory';
export * from './order-operation/dispatch-order-operation.use-case';
export * from './token-operation/dispatch-token-operation.use-case';
export * from './merchants/manage-merchants';
