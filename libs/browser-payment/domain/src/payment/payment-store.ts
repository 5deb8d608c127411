import type { BrowserPaymentRepository } from '@gateway/browser-payment/data-access';

export const PAYMENT_STORE = Symbol('PAYMENT_STORE');

/** browser-payment's payments, provider refunds and captures (BrowserPaymentRepository; in memory in unit tests). */
export type PaymentStore = Pick<
  BrowserPaymentRepository,
  | 'saveInitiated'
  | 'findById'
  | 'findByTokenHash'
  | 'findByTransaction'
  | 'findExpired'
  | 'databaseNow'
  | 'transition'
  | 'claimExecution'
  | 'releaseExecution'
  | 'discardUnrecorded'
  | 'findRefund'
  | 'insertRefund'
  | 'findCapture'
  | 'insertCapture'
  | 'findCapturedPayment'
>;
