import type { ColumnOptions } from 'typeorm';
import { ORDER_STATUSES, TRANSACTION_RESULTS, TRANSACTION_TYPES } from '@gateway/contracts';
import { oneOfCheck } from '@gateway/platform';

/**
 * Money columns: exact numerics wide enough for the API's largest amount (13 integer digits)
 * at the largest ISO 4217 exponent (4). The driver hands them back as strings, never as JS
 * numbers (see serviceDataSourceOptions).
 */
export const MONEY_COLUMN: ColumnOptions = { type: 'numeric', precision: 17, scale: 4 };

/** The ledger's value lists, each as one constant (oneOfCheck: Postgres rebuilds it cheaply at every write). */
export const ORDER_STATUS_CHECK = oneOfCheck('status', ORDER_STATUSES);

export const TRANSACTION_TYPE_CHECK = oneOfCheck('type', TRANSACTION_TYPES);

export const TRANSACTION_RESULT_CHECK = oneOfCheck('result', TRANSACTION_RESULTS);

/**
 * Amount checks compare with `0.0`, a numeric constant, rather than `0`, an integer that Postgres
 * stores with its cast to numeric and evaluates again at each write statement.
 */
export const ORDER_AMOUNTS_CHECK =
  'amount >= 0.0 AND total_authorized_amount >= 0.0 AND total_captured_amount >= 0.0 AND total_refunded_amount >= 0.0';
