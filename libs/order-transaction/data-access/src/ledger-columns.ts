import type { ColumnOptions } from 'typeorm';

/**
 * Money columns: exact numerics wide enough for the API's largest amount (13 integer digits)
 * at the largest ISO 4217 exponent (4). The driver hands them back as strings, never as JS
 * numbers (see serviceDataSourceOptions).
 */
export const MONEY_COLUMN: ColumnOptions = { type: 'numeric', precision: 17, scale: 4 };

export const ORDER_STATUS_CHECK = `status IN ('AUTHORIZED', 'CANCELLED', 'CAPTURED', 'EXCESSIVELY_REFUNDED', 'FAILED', 'INITIATED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REFUND_REQUESTED', 'VERIFIED')`;

export const TRANSACTION_TYPE_CHECK = `type IN ('AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'CAPTURE', 'PAYMENT', 'REFUND', 'REFUND_REQUEST', 'VERIFICATION', 'VOID_AUTHORIZATION', 'VOID_CAPTURE', 'VOID_PAYMENT', 'VOID_REFUND')`;

export const TRANSACTION_RESULT_CHECK = `result IN ('SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN')`;
