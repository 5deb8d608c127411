import { randomBytes } from 'node:crypto';
import { maskCardNumbers } from '@gateway/crypto';
import { ERROR_CATALOGUE, ErrorCause, ErrorCode, isErrorCode, ValidationType } from './error-catalogue';

/** The form a GatewayError takes on the wire between services and the edge. */
export interface WireError {
  readonly gatewayError: true;
  readonly code: ErrorCode;
  readonly explanation?: string;
  readonly field?: string;
  readonly validationType?: ValidationType;
  readonly supportCode?: string;
  readonly retryAfterSeconds?: number;
  /** See GatewayErrorDetails.beforeAnyAcquirer. Absent from a service of the release before. */
  readonly beforeAnyAcquirer?: true;
}

export interface GatewayErrorDetails {
  explanation?: string;
  field?: string;
  validationType?: ValidationType;
  supportCode?: string;
  retryAfterSeconds?: number;
  /**
   * The operation was refused before it presented anything to an acquirer (ORDER_LOCK_LOST at
   * the ledger's begin or reservation): a session's security code it took is unused, and the edge
   * gives it back (docs/decisions/security-code-used-once.md, amendment 2026-11-27).
   */
  beforeAnyAcquirer?: boolean;
}

/**
 * A failure the gateway answers with the spec's error body. Thrown by use cases and the
 * edge; carried between processes as a WireError. The explanation is shown to merchants, so
 * callers build it from field names and safe values only (see api-fields' `showValue`), and
 * every explanation has its card numbers masked here, whoever built it: explanations quote ids
 * the merchant chose (a token, an order or transaction id), and an id may be a card number.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly explanation?: string;
  readonly field?: string;
  readonly validationType?: ValidationType;
  readonly supportCode?: string;
  readonly retryAfterSeconds?: number;
  readonly beforeAnyAcquirer?: true;

  constructor(code: ErrorCode, details: GatewayErrorDetails = {}) {
    const explanation = details.explanation === undefined ? undefined : safeExplanation(details.explanation);
    super(explanation ?? code);
    this.name = 'GatewayError';
    this.code = code;
    this.explanation = explanation;
    this.field = details.field;
    this.validationType = details.validationType;
    this.supportCode = details.supportCode;
    this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.beforeAnyAcquirer === true) {
      this.beforeAnyAcquirer = true;
    }
  }

  get errorCause(): ErrorCause {
    return ERROR_CATALOGUE[this.code].cause;
  }

  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  static invalidField(field: string, validationType: ValidationType, explanation: string): GatewayError {
    return new GatewayError('INVALID_FIELD', { field, validationType, explanation });
  }

  static invalidRequest(explanation: string): GatewayError {
    return new GatewayError('INVALID_REQUEST', { explanation });
  }

  /**
   * A dependency is unavailable or overloaded: the merchant retries (a retried transaction id is
   * answered as the ledger knows it: a replay, or processed then).
   */
  static serverBusy(): GatewayError {
    return new GatewayError('SERVER_BUSY', { explanation: 'The gateway is busy. Please retry the request.', retryAfterSeconds: 1 });
  }

  /** An internal fault: a fresh support code the caller logs next to the real cause. */
  static serverFailed(supportCode = newSupportCode()): GatewayError {
    return new GatewayError('SERVER_FAILED', { supportCode });
  }

  toWire(): WireError {
    return {
      gatewayError: true,
      code: this.code,
      explanation: this.explanation,
      field: this.field,
      validationType: this.validationType,
      supportCode: this.supportCode,
      retryAfterSeconds: this.retryAfterSeconds,
      ...(this.beforeAnyAcquirer ? { beforeAnyAcquirer: true as const } : {}),
    };
  }

  static isWire(value: unknown): value is WireError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as WireError).gatewayError === true &&
      isErrorCode((value as WireError).code)
    );
  }

  static fromWire(wire: WireError): GatewayError {
    return new GatewayError(wire.code, wire);
  }

  /**
   * The spec's error body: `{"error":{...},"result":"ERROR"}` with only the fields the
   * Errors table allows for this cause.
   */
  toResponseBody(): { error: Record<string, string>; result: 'ERROR' } {
    const cause = this.errorCause;
    const error: Record<string, string> = { cause };
    if ((cause === 'INVALID_REQUEST' || cause === 'SERVER_BUSY') && this.explanation) {
      error.explanation = this.explanation.slice(0, 1000);
    }
    if (cause === 'INVALID_REQUEST' && this.field && this.validationType) {
      error.field = this.field.slice(0, 100);
      error.validationType = this.validationType;
    }
    if ((cause === 'SERVER_FAILED' || cause === 'REQUEST_REJECTED') && this.supportCode) {
      error.supportCode = this.supportCode;
    }
    return { error, result: 'ERROR' };
  }
}

/**
 * An explanation as a merchant, a log line and another service may see it: any digits that may
 * hold a card number masked 6.4, keeping the text's shape (`Token '512345xxxxxx0008' does not
 * exist ...`), as the edge's field errors quote values. Masking an already masked text changes
 * nothing, so an error carried across services keeps its explanation.
 */
function safeExplanation(explanation: string): string {
  return maskCardNumbers(explanation, 'keep-length');
}

/** Support codes are short, random and safe to read out on the phone. */
export function newSupportCode(): string {
  return randomBytes(6).toString('hex').toUpperCase();
}
