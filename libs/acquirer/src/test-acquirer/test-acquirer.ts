import { randomInt } from 'node:crypto';
import { TEST_ACQUIRER_ID } from '@gateway/contracts';
import type { AcquirerCallOptions, AcquirerConnector } from '../acquirer-connector';
import type {
  AcquirerCard,
  AcquirerOperationContext,
  AcquirerTransactionReference,
  AuthorizeCardRequest,
  CaptureRequest,
  CardOperationRequest,
  InquiryRequest,
  PayCardRequest,
  RefundRequest,
  VerifyCardRequest,
  VoidRequest,
} from '../acquirer-requests';
import type {
  AcquirerTransactionData,
  AuthorizationResponse,
  AuthorizeCardResult,
  CaptureResult,
  CardProfile,
  CardTransactionResult,
  InquiryResult,
  PayCardResult,
  RefundResult,
  VerifyCardResult,
  VoidResult,
} from '../acquirer-results';
import { CardBinProfile, lookupCardBin } from '../card/card-bin-table';
import { resultOfGatewayCode, SUCCESSFUL_GATEWAY_CODES } from '../codes/gateway-codes';
import { amountOutcome } from './amount-outcomes';
import { avsOutcome } from './avs-table';
import { ExpiryOutcome, expiryOutcome } from './expiry-outcomes';
import { securityCodeOutcome } from './security-code-outcomes';

/** The test acquirer's `transaction.acquirer.id`, defined with the routing that chooses it (contracts, acquirer-routing.ts). */
export { TEST_ACQUIRER_ID };

/**
 * ISO 8583 processing codes: 00 goods and services (verification, authorisation, payment,
 * capture), 20 refund. A void repeats the processing code of what it undoes.
 */
const PROCESSING_CODE = { purchase: '000000', refund: '200000' } as const;

/**
 * The references the test acquirer hands out as `transaction.acquirer.transactionId`:
 * a network code, six digits and MMDD (Banknet), or fifteen digits. CAPTURE and VOID must
 * name one of them; the test acquirer keeps no state (it runs inside several services), so
 * "known" means "in a form it issues".
 */
const ISSUED_REFERENCE = /^([A-Z]{3}[0-9]{6}[0-9]{4}|[0-9]{15})$/;

export interface TestAcquirerOptions {
  /** Clock for expiry checks and the acquirer's date and time fields. */
  readonly now?: () => Date;
  /** `count` random decimal digits, for STANs, approval codes and references. */
  readonly randomDigits?: (count: number) => string;
  /** Latency added to every call unless the call overrides it (merchant `testAcquirer.latencyMs`). */
  readonly latencyMs?: number;
}

/**
 * The built-in acquirer of test merchants: it answers from magic values in the request
 * (expiry, security code, billing street or postcode, the amount for partial approvals;
 * docs/test-acquirer.md), as the real gateway's test environment does, after a configurable
 * latency so load and lock tests can hold an order busy. It never sees more of the card than
 * its BIN, last four digits and the magic values: results carry the masked number only.
 */
export class TestAcquirer implements AcquirerConnector {
  readonly acquirerId = TEST_ACQUIRER_ID;
  private readonly now: () => Date;
  private readonly randomDigits: (count: number) => string;
  private readonly latencyMs: number;

  constructor(options: TestAcquirerOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.randomDigits = options.randomDigits ?? secureRandomDigits;
    this.latencyMs = options.latencyMs ?? 0;
  }

  /** The same acquirer with another default latency (a merchant's setting). */
  withLatency(latencyMs: number): TestAcquirer {
    return new TestAcquirer({ now: this.now, randomDigits: this.randomDigits, latencyMs });
  }

  async verify(request: VerifyCardRequest, options?: AcquirerCallOptions): Promise<VerifyCardResult> {
    await this.simulateLatency(options);
    const at = this.now();
    return this.cardTransaction(request, expiryOutcome(request.card.expiry, at), at);
  }

  authorize(request: AuthorizeCardRequest, options?: AcquirerCallOptions): Promise<AuthorizeCardResult> {
    return this.fundsOnCard(request, options);
  }

  /** Answers as an authorisation would: the test issuer approves and captures in one. */
  pay(request: PayCardRequest, options?: AcquirerCallOptions): Promise<PayCardResult> {
    return this.fundsOnCard(request, options);
  }

  /** Approved for an authorisation it issued, whatever the amount (the ledger's rule). */
  async capture(request: CaptureRequest, options?: AcquirerCallOptions): Promise<CaptureResult> {
    await this.simulateLatency(options);
    const at = this.now();
    const outcome = referenceOutcome(request.authorization);
    return {
      ...this.processed(request, outcome, at, PROCESSING_CODE.purchase, undefined),
      amount: request.amount,
    };
  }

  /** Approved for a transaction it issued. */
  async void(request: VoidRequest, options?: AcquirerCallOptions): Promise<VoidResult> {
    await this.simulateLatency(options);
    const at = this.now();
    const processingCode =
      request.targetType === 'REFUND' ? PROCESSING_CODE.refund : PROCESSING_CODE.purchase;
    return this.processed(request, referenceOutcome(request.target), at, processingCode, undefined);
  }

  /**
   * A refund with a card (standalone, or linked where the ledger kept the card) answers by the
   * card's expiry like any card transaction; a linked refund without one is approved.
   */
  async refund(request: RefundRequest, options?: AcquirerCallOptions): Promise<RefundResult> {
    await this.simulateLatency(options);
    const at = this.now();
    const outcome = request.card ? expiryOutcome(request.card.expiry, at) : APPROVED_WITHOUT_CARD;
    const bin = request.card ? lookupCardBin(request.card.number) : undefined;
    return {
      ...this.processed(request, outcome, at, PROCESSING_CODE.refund, bin),
      amount: request.amount,
      ...(request.card && bin ? { card: cardProfile(request.card, bin) } : {}),
    };
  }

  /**
   * An inquiry about a call whose answer was lost. Stateless like every answer here: a
   * transaction "it processed" is one named by a reference in the form it issues, which every
   * answer it gives carries, UNKNOWN ones included. So the lost answer of a 05/37 card is found
   * APPROVED (the issuer approved; the answer never reached the gateway), with its reference
   * and, for what the issuer decides (VERIFY, AUTHORIZE, PAY), an approval code. A call no
   * answer of its came back from, with no reference, is one it never received: DECLINED,
   * acquirer code 25 "Unable to locate record" (docs/test-acquirer.md).
   */
  async inquire(request: InquiryRequest, options?: AcquirerCallOptions): Promise<InquiryResult> {
    await this.simulateLatency(options);
    const reference = request.reference;
    if (!reference || !ISSUED_REFERENCE.test(reference.acquirerTransactionId)) {
      const { gatewayCode, acquirerCode, acquirerMessage } = NO_SUCH_TRANSACTION;
      return { gatewayCode, result: resultOfGatewayCode(gatewayCode), acquirerCode, acquirerMessage };
    }
    const issuerDecided = request.operation === 'VERIFY' || request.operation === 'AUTHORIZE' || request.operation === 'PAY';
    return {
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      acquirerCode: APPROVED_WITHOUT_CARD.acquirerCode,
      acquirerMessage: APPROVED_WITHOUT_CARD.acquirerMessage,
      acquirerTransactionId: reference.acquirerTransactionId,
      ...(issuerDecided ? { authorizationCode: reference.authorizationCode ?? this.randomDigits(6) } : {}),
    };
  }

  /**
   * AUTHORIZE and PAY: the card's expiry decides as for a verification; when the card would be
   * approved, the amount may make it a partial approval or INSUFFICIENT_FUNDS.
   */
  private async fundsOnCard(
    request: AuthorizeCardRequest,
    options?: AcquirerCallOptions,
  ): Promise<AuthorizeCardResult> {
    await this.simulateLatency(options);
    const at = this.now();
    const byCard = expiryOutcome(request.card.expiry, at);
    const byAmount =
      byCard.gatewayCode === 'APPROVED'
        ? amountOutcome(request.amount, request.acceptPartialAmount === true)
        : undefined;
    return {
      ...this.cardTransaction(request, byAmount?.outcome ?? byCard, at),
      approvedAmount: byAmount?.approvedAmount ?? request.amount,
      requestedAmount: request.amount,
    };
  }

  /** The result of a transaction the issuer was asked about: approval code, card, CSC, AVS. */
  private cardTransaction(
    request: CardOperationRequest,
    outcome: ExpiryOutcome,
    at: Date,
  ): CardTransactionResult {
    const bin = lookupCardBin(request.card.number);
    return {
      ...this.processed(request, outcome, at, PROCESSING_CODE.purchase, bin),
      ...(SUCCESSFUL_GATEWAY_CODES.has(outcome.gatewayCode)
        ? { authorizationCode: this.randomDigits(6) }
        : {}),
      card: cardProfile(request.card, bin),
      cardSecurityCode: securityCodeOutcome(request.card.securityCode, outcome.issuerAnswered),
      avs: avsOutcome(request.cardholder?.billingAddress, outcome.issuerAnswered),
    };
  }

  private processed(
    context: AcquirerOperationContext,
    outcome: ExpiryOutcome,
    at: Date,
    processingCode: string,
    bin: CardBinProfile | undefined,
  ) {
    const stan = this.randomDigits(6);
    const date = mmdd(at);
    const time = hhmmss(at);
    const transactionIdentifier = this.transactionIdentifier(bin, date);
    const authorizationResponse: AuthorizationResponse = {
      ...(bin?.commercialCard ? { commercialCard: bin.commercialCard } : {}),
      date,
      ...(bin?.financialNetworkCode ? { financialNetworkCode: bin.financialNetworkCode } : {}),
      processingCode,
      ...(outcome.acquirerCode ? { responseCode: outcome.acquirerCode } : {}),
      stan,
      time,
      transactionIdentifier,
    };
    const acquirer: AcquirerTransactionData = {
      id: TEST_ACQUIRER_ID,
      merchantId: context.merchantId,
      transactionId: transactionIdentifier,
      date,
      time,
    };
    return {
      gatewayCode: outcome.gatewayCode,
      result: resultOfGatewayCode(outcome.gatewayCode),
      ...(outcome.acquirerCode
        ? { acquirerCode: outcome.acquirerCode, acquirerMessage: outcome.acquirerMessage }
        : {}),
      acquirer,
      authorizationResponse,
      receipt: retrievalReferenceNumber(at, stan),
    };
  }

  /**
   * Mastercard's Banknet reference (network code, six characters, MMDD) for cards on its
   * network; fifteen digits, as Visa's transaction identifier, otherwise.
   */
  private transactionIdentifier(bin: CardBinProfile | undefined, date: string): string {
    if (bin?.financialNetworkCode) {
      return `${bin.financialNetworkCode}${this.randomDigits(6)}${date}`;
    }
    return this.randomDigits(15);
  }

  private async simulateLatency(options: AcquirerCallOptions | undefined): Promise<void> {
    const latencyMs = options?.latencyMs ?? this.latencyMs;
    // No timer at all for the usual 0: VERIFY must sustain 1,000/s on two cores.
    if (latencyMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
    }
  }
}

const APPROVED_WITHOUT_CARD: ExpiryOutcome = {
  gatewayCode: 'APPROVED',
  acquirerCode: '00',
  acquirerMessage: 'Approved',
  issuerAnswered: true,
};

/** ISO 8583 25: the acquirer has no such transaction to capture or void. */
const NO_SUCH_TRANSACTION: ExpiryOutcome = {
  gatewayCode: 'DECLINED',
  acquirerCode: '25',
  acquirerMessage: 'Unable to locate record',
  issuerAnswered: true,
};

function referenceOutcome(reference: AcquirerTransactionReference): ExpiryOutcome {
  return ISSUED_REFERENCE.test(reference.acquirerTransactionId) ? APPROVED_WITHOUT_CARD : NO_SUCH_TRANSACTION;
}

function cardProfile(card: AcquirerCard, bin: CardBinProfile): CardProfile {
  return {
    maskedNumber: card.number.masked,
    brand: bin.brand,
    scheme: bin.scheme,
    fundingMethod: bin.fundingMethod,
    expiry: card.expiry,
  };
}

/** ISO 8583 retrieval reference number: last digit of the year, day of year, hour, STAN. */
function retrievalReferenceNumber(at: Date, stan: string): string {
  const startOfYear = Date.UTC(at.getUTCFullYear(), 0, 1);
  const dayOfYear = Math.floor((at.getTime() - startOfYear) / 86_400_000) + 1;
  return `${at.getUTCFullYear() % 10}${String(dayOfYear).padStart(3, '0')}${pad2(at.getUTCHours())}${stan}`;
}

function mmdd(at: Date): string {
  return `${pad2(at.getUTCMonth() + 1)}${pad2(at.getUTCDate())}`;
}

function hhmmss(at: Date): string {
  return `${pad2(at.getUTCHours())}${pad2(at.getUTCMinutes())}${pad2(at.getUTCSeconds())}`;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

function secureRandomDigits(count: number): string {
  let digits = '';
  while (digits.length < count) {
    // randomInt's range must stay below 2^48; 6 digits per draw keeps well inside it.
    digits += String(randomInt(0, 1_000_000)).padStart(6, '0');
  }
  return digits.slice(0, count);
}
