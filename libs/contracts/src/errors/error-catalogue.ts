/**
 * The gateway's coded errors: one stable code per kind of failure, its spec `error.cause`
 * and the HTTP status the edge answers with. Codes cross the NATS wire; free text never
 * decides behaviour. Explanations never carry card data (see GatewayError).
 */
export type ErrorCause = 'INVALID_REQUEST' | 'REQUEST_REJECTED' | 'SERVER_BUSY' | 'SERVER_FAILED';
export type ValidationType = 'INVALID' | 'MISSING' | 'UNSUPPORTED';

interface CatalogueEntry {
  readonly cause: ErrorCause;
  readonly status: number;
}

export const ERROR_CATALOGUE = {
  /** A field failed validation; `field` and `validationType` say which and how. */
  INVALID_FIELD: { cause: 'INVALID_REQUEST', status: 400 },
  /** The request is well-formed but the gateway refuses it (a business rule). */
  INVALID_REQUEST: { cause: 'INVALID_REQUEST', status: 400 },
  /** The body is not JSON, or not a JSON object. */
  UNPARSABLE_REQUEST: { cause: 'INVALID_REQUEST', status: 400 },
  /** Missing or wrong credentials, or a credential for another merchant. */
  INVALID_CREDENTIALS: { cause: 'INVALID_REQUEST', status: 401 },
  /** A resource the request names does not exist. */
  NOT_FOUND: { cause: 'INVALID_REQUEST', status: 404 },
  /** No such path. */
  UNKNOWN_PATH: { cause: 'INVALID_REQUEST', status: 404 },
  /** The path exists but not with this HTTP method. */
  METHOD_NOT_ALLOWED: { cause: 'INVALID_REQUEST', status: 405 },
  /**
   * A card operation for a merchant with no acquirer to send it to (live merchants: this
   * gateway connects test merchants to its test acquirer only). Never a simulated approval.
   */
  ACQUIRER_NOT_CONFIGURED: { cause: 'INVALID_REQUEST', status: 400 },
  /**
   * A browser payment for a merchant with no provider connection (live merchants: this gateway
   * connects test merchants to its built-in provider simulators only). Never a simulated approval.
   */
  PROVIDER_NOT_CONFIGURED: { cause: 'INVALID_REQUEST', status: 400 },
  /** An authenticated caller refused for security reasons (disabled merchant, certificate). */
  REQUEST_REJECTED: { cause: 'REQUEST_REJECTED', status: 403 },
  /** A dependency did not answer in time, or nobody serves the subject. */
  SERVER_BUSY: { cause: 'SERVER_BUSY', status: 503 },
  /**
   * A write reached the order ledger with a fencing token older than the order's last one: the
   * caller's order lock lapsed and another operation has taken the order since. Nothing was
   * written; the edge answers it as LOCK_FAILURE (201), anything else as a retryable 503.
   */
  ORDER_LOCK_LOST: { cause: 'SERVER_BUSY', status: 503 },
  /** The caller is throttled. */
  THROTTLED: { cause: 'SERVER_BUSY', status: 503 },
  /** Anything unexpected. Always carries a support code that is also logged. */
  SERVER_FAILED: { cause: 'SERVER_FAILED', status: 500 },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
