import type {
  AuthorizeCardRequest,
  CaptureRequest,
  InquiryRequest,
  PayCardRequest,
  RefundRequest,
  VerifyCardRequest,
  VoidRequest,
} from './acquirer-requests';
import type {
  AuthorizeCardResult,
  CaptureResult,
  InquiryResult,
  PayCardResult,
  RefundResult,
  VerifyCardResult,
  VoidResult,
} from './acquirer-results';

export const ACQUIRER_OPERATIONS = ['VERIFY', 'REFUND', 'AUTHORIZE', 'CAPTURE', 'PAY', 'VOID'] as const;
export type AcquirerOperation = (typeof ACQUIRER_OPERATIONS)[number];

export interface AcquirerCallOptions {
  /**
   * Simulated acquirer latency for this call, overriding the merchant's
   * `testAcquirer.latencyMs`. Only the test acquirer honours it; real connectors ignore it.
   */
  readonly latencyMs?: number;
}

/**
 * A connection to an acquirer: what the services that move card money (verification,
 * token-vault's acquirer calls on stored cards, order-transaction's payments and refunds)
 * call. One implementation per acquirer; the AcquirerRegistry picks it per merchant.
 *
 * Card operations (verify, authorize, pay, standalone refunds) carry the card; CAPTURE, VOID
 * and linked refunds name the earlier transaction as the acquirer knows it, so a service
 * that never held the card (order-transaction) calls them directly. Business outcomes
 * (declines, timeouts, unknown outcomes) are results, never exceptions.
 *
 * A connector to a real acquirer must send the merchant, order and transaction ids of every
 * call (AcquirerOperationContext) as the acquirer's duplicate-check reference (the merchant
 * transaction reference its API de-duplicates on), so that an operation the gateway sends again
 * under the same ids (a merchant's retry after the ledger lost its record, in a restore to an
 * earlier point) is answered by the acquirer as the one it already processed, never processed
 * twice. The ledger's own defence, `transactions record-lost`, needs an operator; this one does
 * not (docs/decisions/backup-and-restore.md). The test acquirer keeps no state and cannot.
 *
 * A connector to a real acquirer must also answer every call within REFUND_CALL_TIMEOUT_MS
 * (a call it gives up on is an UNKNOWN outcome, asked about later): order-transaction's shutdown
 * grace and the age at which it takes a PENDING reservation for abandoned and asks the acquirer
 * about it (ABANDONED_RESERVATION_AFTER_MS) both assume no call outlasts it
 * (`longestReservedOperation`). Only the test acquirer's `latencyMs` (up to 60 s, for tests that
 * hold an order busy) may exceed it, for TEST merchants, whose money is not real.
 */
export interface AcquirerConnector {
  /** `transaction.acquirer.id` of the transactions it processes. */
  readonly acquirerId: string;
  verify(request: VerifyCardRequest, options?: AcquirerCallOptions): Promise<VerifyCardResult>;
  /** Reserves the amount on the card; may approve only part of it (`acceptPartialAmount`). */
  authorize(request: AuthorizeCardRequest, options?: AcquirerCallOptions): Promise<AuthorizeCardResult>;
  /** Authorisation and capture in one. */
  pay(request: PayCardRequest, options?: AcquirerCallOptions): Promise<PayCardResult>;
  /**
   * Captures (part of) an earlier authorisation. Whether the amount fits what was authorised
   * is the ledger's rule: the connector forwards what it is asked.
   */
  capture(request: CaptureRequest, options?: AcquirerCallOptions): Promise<CaptureResult>;
  /** Undoes an earlier transaction of the order before settlement. */
  void(request: VoidRequest, options?: AcquirerCallOptions): Promise<VoidResult>;
  refund(request: RefundRequest, options?: AcquirerCallOptions): Promise<RefundResult>;
  /**
   * What became of an earlier call whose answer was lost (spec UNKNOWN: "code updated if later
   * learned"), asked by the identifiers it carried. Moves no money.
   */
  inquire(request: InquiryRequest, options?: AcquirerCallOptions): Promise<InquiryResult>;
}
