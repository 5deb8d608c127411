import type { ColumnOptions } from 'typeorm';

/**
 * Money columns: exact numerics wide enough for the API's largest amount (13 integer digits)
 * at the largest ISO 4217 exponent (4). Read back as text, never as JS numbers.
 */
export const MONEY_COLUMN: ColumnOptions = { type: 'numeric', precision: 17, scale: 4 };

export const PROVIDERS = ['provider_a', 'provider_b', 'provider_c'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** provider_a lets the merchant choose; provider_b and provider_c bank transfers always PAY. */
export const PAYMENT_OPERATIONS = ['AUTHORIZE', 'PAY'] as const;
export type PaymentOperation = (typeof PAYMENT_OPERATIONS)[number];

export const CONFIRMATIONS = ['CONFIRM_AT_MERCHANT', 'CONFIRM_AT_PROVIDER'] as const;
export type Confirmation = (typeof CONFIRMATIONS)[number];

/** browserPayment.interaction.status, in the order a journey passes through them. */
export const INTERACTION_STATUSES = ['INITIATED', 'REDIRECTED_TO_PROVIDER', 'RETURNED_TO_MERCHANT', 'COMPLETED'] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

export const PAYMENT_RESULTS = ['PENDING', 'SUCCESS', 'FAILURE'] as const;
export type PaymentResult = (typeof PAYMENT_RESULTS)[number];

/** What the provider said about the payer when the payer came back. */
export const PAYER_OUTCOMES = ['APPROVED', 'CANCELLED'] as const;
export type PayerOutcome = (typeof PAYER_OUTCOMES)[number];

export const inList = (column: string, values: readonly string[]) => `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;

/**
 * A payment the gateway settles once its redirect token expired (the payer can no longer move
 * it): still pending, and not back and waiting for the merchant's confirm, which is the
 * merchant's to settle. The partial index of the same predicate keeps them in expiry order.
 */
export const EXPIRY_DUE_PREDICATE = `result = 'PENDING' AND (interaction_status <> 'RETURNED_TO_MERCHANT' OR confirmation = 'CONFIRM_AT_PROVIDER')`;

/**
 * The rest of the pending payments: back and approved, waiting for the merchant's confirm
 * (CONFIRM_AT_MERCHANT). The gateway settles one once its confirm window passed, counted from
 * `time_returned` (written by the return, with the status). The partial index of the same
 * predicate (payments_confirm_awaited_idx) keeps them by return time; together with
 * EXPIRY_DUE_PREDICATE it covers every PENDING payment, each in one of the two.
 */
export const CONFIRM_AWAITED_PREDICATE = `result = 'PENDING' AND interaction_status = 'RETURNED_TO_MERCHANT' AND confirmation = 'CONFIRM_AT_MERCHANT'`;

/**
 * The payments the payer personal-data retention may still have to strip, for its index
 * (payments_to_strip_idx): the journey over (a PENDING one still needs its request and return URL)
 * and not marked stripped since the payment's last step.
 */
export const TO_STRIP_PREDICATE = `personal_data_stripped_at IS NULL AND result <> 'PENDING'`;
