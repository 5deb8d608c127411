export const BROWSER_PAYMENT_OPTIONS = Symbol('BROWSER_PAYMENT_OPTIONS');

export interface BrowserPaymentOptions {
  /** The gateway's address as payers' browsers reach it (redirect URLs). */
  publicBaseUrl: string;
  /** How long a redirect token opens its journey. */
  tokenTtlMs: number;
}

export const CLOCK = Symbol('CLOCK');

/** The time, injectable so expiry is testable without waiting. */
export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };
