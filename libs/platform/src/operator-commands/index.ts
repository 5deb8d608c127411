export * from './command-line';
export * from './payer-data-erase.command';
export * from './service-command';
