import { createHmac } from 'node:crypto';
import { Matches, ValidateIf } from 'class-validator';
import { decodeKeyMaterial, Secret } from '@gateway/crypto';
import { Describe } from '../config/config-decorators';
import { ConfigError } from '../config/load-config';
import { canonicalJson } from './sorted-json';

/** The variable that holds the request hash key (base64 of 32 bytes) in the services that hash. */
export const REQUEST_HASH_KEY_VARIABLE = 'REQUEST_HASH_KEY';

/** Base64 (standard or URL-safe) of 32 bytes, as the config classes check it before the key is decoded. */
const REQUEST_HASH_KEY_PATTERN = /^[A-Za-z0-9+/_-]{43}=?$/;

/** What the configuration reference says about REQUEST_HASH_KEY, the same in every service that reads it. */
const REQUEST_HASH_KEY_DESCRIPTION =
  'Key of the request hashes the ledger keeps for replay detection (HMAC-SHA256 of the canonical request body): base64 of 32 bytes, ' +
  'the same value in order-transaction and browser-payment. Request bodies carry card numbers and security codes, so a plain hash ' +
  'could be reversed from a database copy. Changing it makes retries of earlier transactions fail as different requests ' +
  '(docs/decisions/keyed-request-hash.md).';

/**
 * The REQUEST_HASH_KEY setting of a service's config class (`REQUEST_HASH_KEY = ''`): secret,
 * described alike everywhere, checked as base64 of 32 bytes when set. `requirement` ends its
 * description; whether it is required is the module's to say (RequestHasher.fromConfig).
 */
export function RequestHashKeyVar(requirement: string): PropertyDecorator {
  // In the order TypeScript applies a stack of decorators: the lowest first.
  const decorators = [
    Matches(REQUEST_HASH_KEY_PATTERN, { message: 'must be base64 of 32 bytes' }),
    ValidateIf((config: { [REQUEST_HASH_KEY_VARIABLE]?: string }) => config[REQUEST_HASH_KEY_VARIABLE] !== ''),
    Describe(`${REQUEST_HASH_KEY_DESCRIPTION} ${requirement}`, { secret: true }),
  ];
  return (target, propertyKey) => decorators.forEach((decorate) => decorate(target, propertyKey));
}

/**
 * The `requestHash` of the ledger's begin/record messages: HMAC-SHA256, under the deployment's
 * request hash key, of the canonical request body without `correlationId`, which is transient by
 * the spec (a retry may carry another one and is still the same request). Equal for equal bodies
 * whatever their key order. Keyed because a body may hold a card number, its expiry and security
 * code: with the masked number and expiry beside it in the same row, a plain hash is reversed by
 * trying the few unknown digits (ARCHITECTURE 6, docs/decisions/keyed-request-hash.md).
 */
export class RequestHasher {
  private constructor(
    private readonly key: Secret<Buffer> | undefined,
    private readonly unavailableBecause = '',
  ) {}

  static withKey(key: Secret<Buffer>): RequestHasher {
    if (key.reveal().length < 32) {
      throw new Error('a request hash key is at least 32 bytes');
    }
    return new RequestHasher(key);
  }

  /**
   * The hasher of a process that answers no requests (order-transaction's webhook dispatcher):
   * it has no key, and hashing there would be a wiring fault, so it throws.
   */
  static unavailable(because: string): RequestHasher {
    return new RequestHasher(undefined, because);
  }

  /** From the base64 text of a key; throws naming `what`, never the value. */
  static fromText(text: string, what = REQUEST_HASH_KEY_VARIABLE): RequestHasher {
    return RequestHasher.withKey(new Secret(decodeKeyMaterial(text, what)));
  }

  /**
   * From a service's REQUEST_HASH_KEY, checked at start: missing or malformed stops the service
   * with a ConfigError (exit code 78) naming the variable and never the key. `requiredWhen`
   * says why it is required, for the message.
   */
  static fromConfig(text: string, requiredWhen?: string): RequestHasher {
    if (!text) {
      const problem = `is required${requiredWhen ? ` ${requiredWhen}` : ''} (base64 of 32 bytes)`;
      throw new ConfigError([{ variable: REQUEST_HASH_KEY_VARIABLE, problem }]);
    }
    try {
      return RequestHasher.fromText(text);
    } catch (err) {
      throw new ConfigError([{ variable: REQUEST_HASH_KEY_VARIABLE, problem: (err as Error).message }]);
    }
  }

  /** 64 lowercase hex digits. */
  hash(body: Record<string, unknown>): string {
    if (!this.key) {
      throw new Error(`no request hash key: ${this.unavailableBecause}`);
    }
    const { correlationId: _transient, ...rest } = body;
    return createHmac('sha256', this.key.reveal()).update(canonicalJson(rest), 'utf8').digest('hex');
  }
}
