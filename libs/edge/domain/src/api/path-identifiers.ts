import { safeText } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';

/**
 * The spec's path identifiers table. Errors name the identifier as the table does and quote
 * the value (ids are not sensitive), truncated so a hostile path cannot flood the response.
 */
const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;
const TOKEN_ID = /^[0-9A-Za-z]{1,40}$/;

export interface VersionRange {
  min: number;
  max: number;
}

export function checkVersion(raw: string, range: VersionRange): number {
  const version = /^[0-9]{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(version) || version < range.min || version > range.max) {
    throw GatewayError.invalidField(
      'version',
      'INVALID',
      `${quote(raw)} is invalid. The API version must be a number from ${range.min} to ${range.max}.`,
    );
  }
  return version;
}

export function checkMerchantId(raw: string): string {
  if (!MERCHANT_ID.test(raw)) {
    throw GatewayError.invalidField(
      'merchantId',
      'INVALID',
      `${quote(raw)} is invalid. A merchant id is 1 to 40 characters from 0-9 a-z A-Z '-' '_'.`,
    );
  }
  return raw;
}

export function checkOrderId(raw: string): string {
  return checkString('orderid', raw, 'An order id');
}

export function checkTransactionId(raw: string): string {
  return checkString('transactionid', raw, 'A transaction id');
}

export function checkTokenId(raw: string): string {
  if (!TOKEN_ID.test(raw)) {
    throw GatewayError.invalidField(
      'tokenid',
      'INVALID',
      `${quote(raw)} is invalid. A token is 1 to 40 characters from 0-9 a-z A-Z.`,
    );
  }
  return raw;
}

/**
 * String(1-40): any characters but control characters (they cannot be shown or logged safely,
 * and CR/LF are how header injection starts), path separators and dot segments (`..%2F`: an id
 * must never read as a path, here or in any proxy or log tool that decodes it). See
 * docs/decisions/hostile-input-at-the-edge.md.
 */
const PATH_TRAVERSAL = /[/\\]|^\.{1,2}$/;

function checkString(field: string, raw: string, what: string): string {
  const length = [...raw].length;
  if (length < 1 || length > 40 || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw GatewayError.invalidField(
      field,
      'INVALID',
      `${quote(raw)} is invalid. ${what} is 1 to 40 characters${length > 40 ? `, not ${length}` : ''}, without control characters.`,
    );
  }
  if (PATH_TRAVERSAL.test(raw)) {
    throw GatewayError.invalidField(field, 'INVALID', `${quote(raw)} is invalid. ${what} may not contain '/' or '\\', nor be '.' or '..'.`);
  }
  return raw;
}

function quote(raw: string): string {
  return `Value '${safeText(raw)}'`;
}
