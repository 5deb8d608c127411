import { RequestHasher } from '@gateway/platform';
import { runKey } from './vault-keys';

/**
 * REQUEST_HASH_KEY of the services of one test run (order-transaction and browser-payment share
 * it): derived from the run id like the vault keys, so nothing fixed is checked in as a key.
 */
export function testRequestHashKey(): string {
  return runKey('request-hash');
}

/** The run's request hasher: the hash its services store for a request body. */
export function testRequestHasher(): RequestHasher {
  return RequestHasher.fromText(testRequestHashKey());
}
