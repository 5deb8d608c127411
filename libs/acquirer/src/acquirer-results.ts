import type { TransactionResult } from '@gateway/contracts';
import type { Money } from '@gateway/money';
import type { FundingMethod } from './card/card-bin-table';
import type { CardExpiry } from './card/card-expiry';
import type { AcquirerGatewayCode } from './codes/gateway-codes';
import type { AvsGatewayCode, CscGatewayCode } from './codes/verification-codes';

/**
 * What an acquirer connector answers. Business outcomes (declines, timeouts, unknown
 * outcomes) are results, never exceptions; a connector throws only when it could not reach a
 * decision it can report (a coded GatewayError). Cards come back as their 6.4 mask only.
 */

export interface AcquirerOutcome {
  readonly gatewayCode: AcquirerGatewayCode;
  readonly result: TransactionResult;
  /** The acquirer's (ISO 8583) response code; absent when no answer came back (UNKNOWN). */
  readonly acquirerCode?: string;
  readonly acquirerMessage?: string;
}

/** `transaction.acquirer`: how the acquirer identifies the transaction. */
export interface AcquirerTransactionData {
  readonly id: string;
  readonly merchantId: string;
  readonly transactionId: string;
  /** MMDD */
  readonly date: string;
  /** HHMMSS */
  readonly time: string;
}

/** The spec's `authorizationResponse` group (the fields a connector knows). */
export interface AuthorizationResponse {
  readonly commercialCard?: 'COMMERCIAL_CARD' | 'NOT_A_COMMERCIAL_CARD' | 'UNDETERMINED';
  readonly date: string;
  readonly financialNetworkCode?: string;
  readonly processingCode: string;
  readonly responseCode?: string;
  readonly stan: string;
  readonly time: string;
  readonly transactionIdentifier: string;
}

/** The card as results may show it: masked number, brand, scheme, funding method. */
export interface CardProfile {
  /** 6.4 mask: `512345xxxxxx0008`. */
  readonly maskedNumber: string;
  readonly brand: string;
  readonly scheme: string;
  readonly fundingMethod: FundingMethod;
  readonly expiry: CardExpiry;
}

export interface CardSecurityCodeResult {
  readonly gatewayCode: CscGatewayCode;
  readonly acquirerCode?: string;
}

export interface AvsResult {
  readonly gatewayCode: AvsGatewayCode;
  readonly acquirerCode?: string;
}

/** What every result of a transaction the acquirer processed carries. */
export interface ProcessedTransaction extends AcquirerOutcome {
  readonly acquirer: AcquirerTransactionData;
  readonly authorizationResponse: AuthorizationResponse;
  /** Retrieval reference number (`transaction.receipt`). */
  readonly receipt: string;
}

/** The outcome of a card transaction the issuer was asked about (verify, authorize, pay). */
export interface CardTransactionResult extends ProcessedTransaction {
  /** The issuer's approval code (`transaction.authorizationCode`), on approval only. */
  readonly authorizationCode?: string;
  readonly card: CardProfile;
  readonly cardSecurityCode: CardSecurityCodeResult;
  readonly avs: AvsResult;
}

export type VerifyCardResult = CardTransactionResult;

export interface AuthorizeCardResult extends CardTransactionResult {
  /**
   * What the issuer approved: the requested amount when APPROVED, less when
   * PARTIALLY_APPROVED (the spec's `transaction.amount` and `order.amount` then), and the
   * requested amount on a decline or unknown outcome too (nothing was approved, but the
   * transaction is still recorded for the amount it asked).
   */
  readonly approvedAmount: Money;
  /** The amount asked for (`transaction.requestedAmount` when PARTIALLY_APPROVED). */
  readonly requestedAmount: Money;
}

export type PayCardResult = AuthorizeCardResult;

export interface CaptureResult extends ProcessedTransaction {
  readonly amount: Money;
}

export type VoidResult = ProcessedTransaction;

export interface RefundResult extends ProcessedTransaction {
  readonly amount: Money;
  /** Present when the refund named a card (standalone refunds). */
  readonly card?: CardProfile;
}

/**
 * What the acquirer says of an earlier call (InquiryRequest): the outcome it had, with the
 * acquirer's identification and the approval code when it found one. DECLINED with acquirer
 * code 25 ("Unable to locate record") when it has no record of it; UNKNOWN when it cannot tell yet.
 */
export interface InquiryResult extends AcquirerOutcome {
  /** `transaction.acquirer.transactionId` of the transaction found. */
  readonly acquirerTransactionId?: string;
  /** The issuer's approval code, when it approved. */
  readonly authorizationCode?: string;
  /**
   * PARTIALLY_APPROVED (an AUTHORIZE or PAY): what the issuer approved, less than was asked.
   * Without it the ledger cannot record the partial approval by itself (an operator does).
   */
  readonly approvedAmount?: Money;
}
