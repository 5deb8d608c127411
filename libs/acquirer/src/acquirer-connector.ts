import type {
  AuthorizeCardRequest,
  CaptureRequest,
  PayCardRequest,
  RefundRequest,
  VerifyCardRequest,
  VoidRequest,
} from './acquirer-requests';
import type {
  AuthorizeCardResult,
  CaptureResult,
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
 * token-vault's ACQUIRER verification, order-transaction's refunds) call. One implementation
 * per acquirer; the AcquirerRegistry picks it per merchant.
 */
export interface AcquirerConnector {
  /** `transaction.acquirer.id` of the transactions it processes. */
  readonly acquirerId: string;
  verify(request: VerifyCardRequest, options?: AcquirerCallOptions): Promise<VerifyCardResult>;
  refund(request: RefundRequest, options?: AcquirerCallOptions): Promise<RefundResult>;
}

/**
 * Card payments (issue 9). The request and result types are fixed now so connectors and the
 * ledger agree on them; AcquirerConnector extends this when a connector implements them.
 */
export interface CardPaymentOperations {
  authorize(request: AuthorizeCardRequest, options?: AcquirerCallOptions): Promise<AuthorizeCardResult>;
  pay(request: PayCardRequest, options?: AcquirerCallOptions): Promise<PayCardResult>;
  capture(request: CaptureRequest, options?: AcquirerCallOptions): Promise<CaptureResult>;
  void(request: VoidRequest, options?: AcquirerCallOptions): Promise<VoidResult>;
}
