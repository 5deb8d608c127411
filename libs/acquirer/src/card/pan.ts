/**
 * The acquirer connector handles card numbers as the one shared `Pan` value type (libs/crypto):
 * digits in a private field, only the 6.4 mask in JSON, strings, inspect and logs.
 */
export { maskPan, Pan } from '@gateway/crypto';
