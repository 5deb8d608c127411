export * from './gateway-nats.client';
export * from './gateway-nats.server';
export * from './in-process.transport';
export * from './message-bus';
export * from './parse-message';
export * from './request-context.interceptor';
export * from './transports';
export * from './parse-operation-message';
