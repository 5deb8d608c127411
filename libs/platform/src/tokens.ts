/** Injection tokens of the platform's providers. */
export const APP_LOGGER = Symbol('APP_LOGGER');
export const MESSAGE_CLIENT = Symbol('MESSAGE_CLIENT');
export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
export const APP_CONFIG = Symbol('APP_CONFIG');
