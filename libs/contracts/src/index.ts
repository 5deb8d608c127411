export * from './errors';
export * from './subjects';
export * from './envelope';
export * from './merchant-context';
export * from './messages';
export * from './requests';
export * from './verbatim';
export * from './webhooks/notification-signature';
