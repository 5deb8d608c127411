export * from './aes-gcm';
export * from './master-key-ring';
export * from './vault-keys';
export * from './in-memory-data-key-store';
export * from './sealing-key-ring';
