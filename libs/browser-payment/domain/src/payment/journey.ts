import type { BrowserPaymentRow, PaymentChanges } from '@gateway/browser-payment/data-access';
import type { Money } from '@gateway/money';
import type { PayerReturn, ProviderResult } from '../providers/provider-adapter';

/**
 * A browser payment's journey, in one place: its steps, what each changes, the ledger operation
 * it is recorded as, and the rules that say which step is due. The use cases decide when a step
 * runs; PaymentSteps applies it to the row (conditional on the state it was read in) and records
 * it with the ledger, together.
 *
 *   interaction  INITIATED ──out URL──▶ REDIRECTED_TO_PROVIDER ──in URL──▶ RETURNED_TO_MERCHANT ──execution──▶ COMPLETED
 *   result       PENDING ──────────────────────────────────────────────────────────────────────▶ SUCCESS | FAILURE
 *
 * The execution runs on the payer's return, or the sweep's in its place (CONFIRM_AT_PROVIDER), or
 * on the merchant's CONFIRM_BROWSER_PAYMENT (CONFIRM_AT_MERCHANT), under the payment's execution
 * lease (PaymentSteps.execute); a provider's decline completes it as FAILURE.
 * Two ends come before COMPLETED, with `result` FAILURE and the interaction left where it stopped:
 * the payer back without approving (`returned`: gatewayCode CANCELLED), and the redirect token
 * expired first or the merchant's confirm window passed (`TIMED_OUT`, the sweep). Besides these, a row whose step the ledger recorded but
 * whose commit here was lost takes the end the ledger holds (PaymentSteps.catchUp, recordedEnd).
 */

/**
 * The ledger's operation names for the journey's steps after the initiate. Each is recorded once
 * per transaction (the ledger keeps one response per transaction and operation, and answers a
 * repeated record of the same step with its stored response), so a retried step never records
 * twice. The merchant's confirm is recorded as CONFIRM_BROWSER_PAYMENT instead of `completed`.
 */
export const JOURNEY_STEPS = {
  redirected: 'BROWSER_PAYMENT_REDIRECTED',
  returned: 'BROWSER_PAYMENT_RETURNED',
  completed: 'BROWSER_PAYMENT_COMPLETED',
  /** The gateway's settlement of a journey whose redirect token expired before it ended, or whose confirm window passed (result FAILURE, TIMED_OUT). */
  timedOut: 'BROWSER_PAYMENT_TIMED_OUT',
} as const;
export type JourneyStep = (typeof JOURNEY_STEPS)[keyof typeof JOURNEY_STEPS];

/** The out URL's first visit: the payer leaves for the provider. */
export function redirected(now: Date): PaymentChanges {
  return { interactionStatus: 'REDIRECTED_TO_PROVIDER', timeRedirected: now };
}

/** The in URL's first visit, with what the provider says: approved (still pending), or not (the transaction fails, CANCELLED). */
export function returned(back: PayerReturn, now: Date): PaymentChanges {
  const backAt: PaymentChanges = { interactionStatus: 'RETURNED_TO_MERCHANT', timeReturned: now };
  return back.outcome === 'APPROVED'
    ? { ...backAt, payerOutcome: 'APPROVED', providerDetails: back.payer ?? null }
    : { ...backAt, payerOutcome: 'CANCELLED', result: 'FAILURE', gatewayCode: 'CANCELLED' };
}

/** The provider's answer to the execution of `amount`: the payment is COMPLETED either way, its result the provider's. */
export function executed(result: ProviderResult, amount: Money, now: Date): PaymentChanges {
  return {
    amount: amount.toFixed(),
    interactionStatus: 'COMPLETED',
    timeCompleted: now,
    result: result.approved ? 'SUCCESS' : 'FAILURE',
    gatewayCode: result.gatewayCode,
  };
}

/** The sweep's end of a journey whose token expired, or whose confirm window passed (the spec: treat TIMED_OUT as declined). */
export const TIMED_OUT: PaymentChanges = { result: 'FAILURE', gatewayCode: 'TIMED_OUT' };

/** Returned and approved, to be confirmed at the provider: the return's second half (the execution) is still due. */
export function completionDue(payment: BrowserPaymentRow): boolean {
  return (
    payment.interactionStatus === 'RETURNED_TO_MERCHANT' &&
    payment.payerOutcome === 'APPROVED' &&
    payment.confirmation === 'CONFIRM_AT_PROVIDER' &&
    payment.result === 'PENDING'
  );
}

/** The payer has come back (or more) and nothing of the return is left to do: the token has done its one journey. */
export function journeyOver(payment: BrowserPaymentRow): boolean {
  return ['RETURNED_TO_MERCHANT', 'COMPLETED'].includes(payment.interactionStatus) && !completionDue(payment);
}

/** Back and approved under CONFIRM_AT_MERCHANT, still pending: the merchant's confirm is awaited. */
export function confirmAwaited(payment: BrowserPaymentRow): boolean {
  return (
    payment.interactionStatus === 'RETURNED_TO_MERCHANT' && payment.confirmation === 'CONFIRM_AT_MERCHANT' && payment.result === 'PENDING'
  );
}

/**
 * The merchant's confirm window has passed: `confirmWindowMs` since the payer's return
 * (`timeReturned`, written with RETURNED_TO_MERCHANT). From then on the payer's approval is the
 * gateway's to release (SettleExpiredPayments), as a wallet lets an approval nobody acted on lapse.
 */
export function confirmWindowPassed(payment: BrowserPaymentRow, now: Date, confirmWindowMs: number): boolean {
  return payment.timeReturned !== null && new Date(payment.timeReturned).getTime() + confirmWindowMs <= now.getTime();
}

/**
 * The gateway settles the payment on its own (SettleExpiredPayments): its redirect token
 * expired, so the payer can no longer move it, and it is still pending without waiting for the
 * merchant's confirm, or has waited for it past the confirm window. The repository's
 * EXPIRY_DUE_PREDICATE and CONFIRM_AWAITED_PREDICATE (with `time_returned` compared with now
 * minus the window) are the same rule in SQL (without the expiry, which it compares with the
 * database's clock): change them together.
 */
export function expiryDue(payment: BrowserPaymentRow, now: Date, confirmWindowMs: number): boolean {
  return (
    payment.result === 'PENDING' &&
    (!confirmAwaited(payment) || confirmWindowPassed(payment, now, confirmWindowMs)) &&
    new Date(payment.tokenExpiresAt).getTime() <= now.getTime()
  );
}
