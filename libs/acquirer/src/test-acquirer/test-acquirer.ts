import { randomInt } from 'node:crypto';
import type { AcquirerCallOptions, AcquirerConnector } from '../acquirer-connector';
import type {
  AcquirerCard,
  AcquirerOperationContext,
  RefundRequest,
  VerifyCardRequest,
} from '../acquirer-requests';
import type {
  AcquirerTransactionData,
  AuthorizationResponse,
  CardProfile,
  RefundResult,
  VerifyCardResult,
} from '../acquirer-results';
import { CardBinProfile, lookupCardBin } from '../card/card-bin-table';
import { resultOfGatewayCode } from '../codes/gateway-codes';
import { avsOutcome } from './avs-table';
import { ExpiryOutcome, expiryOutcome } from './expiry-outcomes';
import { securityCodeOutcome } from './security-code-outcomes';

export const TEST_ACQUIRER_ID = 'TEST_ACQUIRER';

/** ISO 8583 processing codes: 00 goods and services (an account verification), 20 refund. */
const PROCESSING_CODE = { verify: '000000', refund: '200000' } as const;

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
 * (expiry, security code, billing street or postcode; docs/test-acquirer.md), as the real
 * gateway's test environment does, after a configurable latency so load and lock tests can
 * hold an order busy. It never sees more of the card than its BIN, last four digits and the
 * magic values: results carry the masked number only.
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
    const outcome = expiryOutcome(request.card.expiry, at);
    const bin = lookupCardBin(request.card.number);
    const approved = outcome.gatewayCode === 'APPROVED';
    return {
      ...this.processed(request, outcome, at, PROCESSING_CODE.verify, bin),
      ...(approved ? { authorizationCode: this.randomDigits(6) } : {}),
      card: cardProfile(request.card, bin),
      cardSecurityCode: securityCodeOutcome(request.card.securityCode, outcome.issuerAnswered),
      avs: avsOutcome(request.cardholder?.billingAddress, outcome.issuerAnswered),
    };
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
