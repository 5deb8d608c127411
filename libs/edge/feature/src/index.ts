export * from './edge.config';
export * from './edge.module';
export * from './http/configure-edge-http';
export * from './demo-merchant';
export * from './edge-tls';
