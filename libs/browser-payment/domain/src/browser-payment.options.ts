export const BROWSER_PAYMENT_OPTIONS = Symbol('BROWSER_PAYMENT_OPTIONS');

export interface BrowserPaymentOptions {
  /** The gateway's address as payers' browsers reach it (redirect URLs). */
  publicBaseUrl: string;
  /** How long a redirect token opens its journey. */
  tokenTtlMs: number;
  /**
   * How long a CONFIRM_AT_MERCHANT payment the payer approved waits for the merchant's confirm,
   * counted from the payer's return (`time_returned`): once it passed (and the token expired),
   * the sweep releases the approval at the provider and ends the payment TIMED_OUT.
   */
  confirmWindowMs: number;
}

export const CLOCK = Symbol('CLOCK');

/** The time, injectable so expiry is testable without waiting. */
export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };
