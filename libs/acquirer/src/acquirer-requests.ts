import type { Money } from '@gateway/money';
import type { CardExpiry } from './card/card-expiry';
import type { Pan } from './card/pan';
import type { SecurityCode } from './card/security-code';

/**
 * What the services send an acquirer connector. Card data travels as Pan and SecurityCode,
 * which print masked, so a request object can be logged or thrown around without leaking
 * the card; amounts are Money (exact decimals), never JS numbers.
 */

export interface AcquirerCard {
  readonly number: Pan;
  readonly expiry: CardExpiry;
  readonly securityCode?: SecurityCode;
  readonly nameOnCard?: string;
  /** EMV PAN sequence number (tag 5F34). */
  readonly sequenceNumber?: string;
  /** The terminal's EMV data (TLV hex) without the tags already carried in explicit fields. */
  readonly emvData?: string;
  /** Device (wallet) payments: the cryptogram and ECI the device produced. */
  readonly devicePayment?: { readonly eciIndicator?: string; readonly onlinePaymentCryptogram?: string };
}

export interface AcquirerAddress {
  readonly street?: string;
  readonly street2?: string;
  readonly city?: string;
  readonly postcodeZip?: string;
  readonly stateProvince?: string;
  readonly stateProvinceCode?: string;
  readonly country?: string;
  readonly company?: string;
}

export interface AcquirerIdentification {
  readonly type?: string;
  readonly value?: string;
  readonly country?: string;
}

/** Cardholder data the acquirer uses for AVS and scheme rules (account funding senders). */
export interface AcquirerCardholder {
  readonly billingAddress?: AcquirerAddress;
  readonly firstName?: string;
  readonly middleName?: string;
  readonly lastName?: string;
  readonly email?: string;
  readonly identification?: AcquirerIdentification;
}

/** 3-D Secure performed by another provider, passed through to the authorisation. */
export interface ExternalAuthentication {
  readonly threeDs?: {
    readonly acsEci?: string;
    readonly authenticationToken?: string;
    readonly transactionId?: string;
  };
  readonly threeDs2?: {
    readonly acsReference?: string;
    readonly acsTransactionId?: string;
    readonly authenticationScheme?: string;
    readonly dsReference?: string;
    readonly protocolVersion?: string;
    readonly statusReasonCode?: string;
    readonly transactionStatus?: string;
  };
  readonly transactionId?: string;
}

/** Stored-credential data: the commercial agreement the transaction belongs to. */
export interface AcquirerAgreement {
  readonly id?: string;
  readonly type?: string;
  readonly amountVariability?: string;
  readonly paymentFrequency?: string;
  readonly numberOfPayments?: number;
  readonly expiryDate?: string;
}

/** Account funding transactions: purpose, sender and recipient. */
export interface AcquirerAccountFunding {
  readonly purpose?: string;
  readonly senderIsRecipient?: boolean;
  readonly senderType?: string;
  readonly recipient?: {
    readonly firstName?: string;
    readonly middleName?: string;
    readonly lastName?: string;
    readonly address?: AcquirerAddress & { readonly postCodeZip?: string };
    readonly identification?: AcquirerIdentification;
  };
}

/** Point-of-sale data (`posTerminal.*`), as given or filled from EMV tags. */
export type AcquirerPosData = Readonly<Record<string, unknown>>;

/**
 * Which order and transaction the acquirer call belongs to, and for whom. A real connector sends
 * the three as the acquirer's duplicate-check reference (AcquirerConnector).
 */
export interface AcquirerOperationContext {
  /** The gateway merchant id; the test acquirer also uses it as the acquirer's merchant id. */
  readonly merchantId: string;
  readonly orderId: string;
  readonly transactionId: string;
}

/** What every operation that presents a card to the issuer carries. */
export interface CardOperationRequest extends AcquirerOperationContext {
  readonly card: AcquirerCard;
  readonly cardholder?: AcquirerCardholder;
  readonly authentication?: ExternalAuthentication;
  readonly agreement?: AcquirerAgreement;
  readonly accountFunding?: AcquirerAccountFunding;
  readonly posTerminal?: AcquirerPosData;
}

/** Account verification: no funds move; the currency names the merchant's acquirer link. */
export interface VerifyCardRequest extends CardOperationRequest {
  readonly currency: string;
}

/** AUTHORIZE (issue 9): reserves `amount` on the card. */
export interface AuthorizeCardRequest extends CardOperationRequest {
  readonly amount: Money;
  /** The merchant accepts a partial approval (order.acceptPartialAmount). */
  readonly acceptPartialAmount?: boolean;
}

/** PAY (issue 9): authorisation and capture in one. */
export type PayCardRequest = AuthorizeCardRequest;

/** How the acquirer knows a transaction it processed earlier on the order. */
export interface AcquirerTransactionReference {
  /** The acquirer's own id of the earlier transaction (`transaction.acquirer.transactionId`). */
  readonly acquirerTransactionId: string;
  readonly authorizationCode?: string;
  readonly receipt?: string;
}

/** CAPTURE (issue 9) of an earlier authorisation. */
export interface CaptureRequest extends AcquirerOperationContext {
  readonly amount: Money;
  readonly authorization: AcquirerTransactionReference;
}

/** VOID_* (issue 9): undoes an earlier transaction before settlement. */
export interface VoidRequest extends AcquirerOperationContext {
  readonly target: AcquirerTransactionReference;
  readonly targetType: 'AUTHORIZATION' | 'CAPTURE' | 'PAYMENT' | 'REFUND';
}

/**
 * A refund: linked (the captured or paid transaction it returns funds for, `original`) or
 * standalone (a card and no `original`). Either may carry the card when the ledger has it.
 */
export interface RefundRequest extends AcquirerOperationContext {
  readonly amount: Money;
  readonly original?: AcquirerTransactionReference;
  readonly card?: AcquirerCard;
}

/**
 * An inquiry about an earlier call whose answer never came (the ledger recorded it UNKNOWN):
 * the identifiers that call carried, and the acquirer's reference when an answer gave one.
 */
export interface InquiryRequest extends AcquirerOperationContext {
  /** What the call asked for. */
  readonly operation: 'VERIFY' | 'AUTHORIZE' | 'PAY' | 'REFUND' | 'CAPTURE' | 'VOID';
  readonly reference?: AcquirerTransactionReference;
}
