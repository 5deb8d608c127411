export * from './bootstrap';
export * from './service-main';
