import type { ColumnOptions } from 'typeorm';

/**
 * Money columns: exact numerics wide enough for the API's largest amount (13 integer digits)
 * at the largest ISO 4217 exponent (4). The driver hands them back as strings, never as JS
 * numbers (see serviceDataSourceOptions).
 */
export const MONEY_COLUMN: ColumnOptions = { type: 'numeric', precision: 17, scale: 4 };

/**
 * A CHECK that `column` holds one of `values`, written as one text[] constant rather than as
 * `IN (...)`. Postgres reads every CHECK of a table back from its stored node text at each write
 * statement; `IN (...)` on a varchar column is stored as an array built from a cast of each value
 * (2.7 KB of text for eleven values), which it then folds back into a constant, each time. The
 * constant is 1 KB and needs no folding (docs/performance.md, "Tuning done"). The values are
 * plain codes, which an array literal takes unquoted.
 */
function oneOf(column: string, values: readonly string[]): string {
  const unfit = values.find((value) => !/^[A-Z][A-Z_]*$/.test(value));
  if (unfit !== undefined) {
    throw new Error(`${column}'s check takes upper-case codes only, got ${JSON.stringify(unfit)}`);
  }
  return `${column} = ANY ('{${values.join(',')}}'::text[])`;
}

export const ORDER_STATUS_CHECK = oneOf('status', [
  'AUTHORIZED',
  'CANCELLED',
  'CAPTURED',
  'EXCESSIVELY_REFUNDED',
  'FAILED',
  'INITIATED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REFUND_REQUESTED',
  'VERIFIED',
]);

export const TRANSACTION_TYPE_CHECK = oneOf('type', [
  'AUTHORIZATION',
  'AUTHORIZATION_UPDATE',
  'CAPTURE',
  'PAYMENT',
  'REFUND',
  'REFUND_REQUEST',
  'VERIFICATION',
  'VOID_AUTHORIZATION',
  'VOID_CAPTURE',
  'VOID_PAYMENT',
  'VOID_REFUND',
]);

export const TRANSACTION_RESULT_CHECK = oneOf('result', ['SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN']);

/**
 * Amount checks compare with `0.0`, a numeric constant, rather than `0`, an integer that Postgres
 * stores with its cast to numeric and evaluates again at each write statement.
 */
export const ORDER_AMOUNTS_CHECK =
  'amount >= 0.0 AND total_authorized_amount >= 0.0 AND total_captured_amount >= 0.0 AND total_refunded_amount >= 0.0';
