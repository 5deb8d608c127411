import { Inject, Injectable, Optional } from '@nestjs/common';
import { cardAcquirerIdOf, GatewayError, MerchantContext, MerchantMode } from '@gateway/contracts';
import { Metrics } from '@gateway/platform';
import type { Counter } from 'prom-client';
import type { AcquirerCallOptions, AcquirerConnector, AcquirerOperation } from './acquirer-connector';
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
import { TestAcquirer } from './test-acquirer/test-acquirer';

/** Overrides the built-in test acquirer (a clock or random source in tests). */
export const TEST_ACQUIRER = Symbol('TEST_ACQUIRER');

export const ACQUIRER_REQUESTS_METRIC = 'gateway_acquirer_requests_total';

/**
 * Chooses the acquirer connector for a merchant, as `cardAcquirerIdOf` (contracts) routes it.
 * Test merchants get the built-in test acquirer with their `testAcquirer.latencyMs`. No real
 * acquirer is connected to this gateway, so a live merchant (routed to none) has its card
 * operation refused with ACQUIRER_NOT_CONFIGURED:
 * a live card must never be "approved" by a simulator.
 *
 * Every call through a connector it hands out is counted in
 * `gateway_acquirer_requests_total{acquirer,operation,outcome}` (outcome: the gateway code,
 * or ERROR when the connector threw), which is also how tests prove that a replayed request
 * made no second acquirer call.
 */
@Injectable()
export class AcquirerRegistry {
  private readonly testAcquirer: TestAcquirer;
  private readonly requests: Counter<string>;

  constructor(metrics: Metrics, @Optional() @Inject(TEST_ACQUIRER) testAcquirer?: TestAcquirer) {
    this.testAcquirer = testAcquirer ?? new TestAcquirer();
    this.requests = metrics.counter(
      ACQUIRER_REQUESTS_METRIC,
      'Calls to acquirers by acquirer, operation and outcome (gateway code, or ERROR).',
      ['acquirer', 'operation', 'outcome'],
    );
  }

  /**
   * The connector of the acquirer `cardAcquirerIdOf` (contracts) routes the merchant's card
   * operations to: the edge reads the same function to name the acquirer of an operation it
   * refused with LOCK_FAILURE, so the two cannot disagree.
   */
  forMerchant(merchant: MerchantContext): AcquirerConnector {
    return new MeteredConnector(this.routed(merchant).withLatency(merchant.settings.testAcquirer.latencyMs), this.requests);
  }

  /**
   * The same connector for work the gateway does on its own, with no merchant request and so no
   * profile (an inquiry about an UNKNOWN outcome): routed by the merchant's mode alone, without
   * the test latency a profile may ask for its requests; or, when the transaction asked about
   * names the acquirer it went to (`recordedAcquirerId`), to that one, as forRecordedAcquirer
   * (the only route when the mode is not known: null).
   */
  forMerchantMode(mode: MerchantMode | null, recordedAcquirerId?: string): AcquirerConnector {
    return new MeteredConnector(this.named(recordedAcquirerId ?? (mode ? cardAcquirerIdOf({ mode }) : undefined)), this.requests);
  }

  /**
   * The connector for an operation on a transaction the ledger holds (a capture, void or linked
   * refund of it, the reversal of one answered TIMED_OUT): the acquirer recorded on that
   * transaction (`transaction.acquirer.id`, `recordedAcquirerId`), whatever the merchant's mode
   * is now, so a test-era authorisation is captured, voided or refunded at the test acquirer
   * after the merchant was switched to LIVE, and one a real acquirer processed never reaches the
   * simulator (live-merchants-without-acquirer.md, amendment "a card order's operations follow
   * its acquirer"). An acquirer this gateway has no connector for is refused with
   * ACQUIRER_NOT_CONFIGURED. A transaction recorded without one is routed as the merchant is.
   */
  forRecordedAcquirer(recordedAcquirerId: string | undefined, merchant: MerchantContext): AcquirerConnector {
    const connector = this.named(recordedAcquirerId ?? cardAcquirerIdOf(merchant));
    return new MeteredConnector(connector.withLatency(merchant.settings.testAcquirer.latencyMs), this.requests);
  }

  private routed(merchant: Pick<MerchantContext, 'mode'>): TestAcquirer {
    return this.named(cardAcquirerIdOf(merchant));
  }

  /** The connector of `acquirerId`: only the test acquirer is connected. */
  private named(acquirerId: string | undefined): TestAcquirer {
    if (acquirerId !== this.testAcquirer.acquirerId) {
      throw new GatewayError('ACQUIRER_NOT_CONFIGURED', {
        explanation: 'Card transactions are not available for this merchant: no acquirer is configured.',
      });
    }
    return this.testAcquirer;
  }
}

/** Counts every call of the connector it wraps, whatever its outcome. */
class MeteredConnector implements AcquirerConnector {
  readonly acquirerId: string;

  constructor(
    private readonly connector: AcquirerConnector,
    private readonly requests: Counter<string>,
  ) {
    this.acquirerId = connector.acquirerId;
  }

  verify(request: VerifyCardRequest, options?: AcquirerCallOptions): Promise<VerifyCardResult> {
    return this.count('VERIFY', () => this.connector.verify(request, options));
  }

  authorize(request: AuthorizeCardRequest, options?: AcquirerCallOptions): Promise<AuthorizeCardResult> {
    return this.count('AUTHORIZE', () => this.connector.authorize(request, options));
  }

  pay(request: PayCardRequest, options?: AcquirerCallOptions): Promise<PayCardResult> {
    return this.count('PAY', () => this.connector.pay(request, options));
  }

  capture(request: CaptureRequest, options?: AcquirerCallOptions): Promise<CaptureResult> {
    return this.count('CAPTURE', () => this.connector.capture(request, options));
  }

  void(request: VoidRequest, options?: AcquirerCallOptions): Promise<VoidResult> {
    return this.count('VOID', () => this.connector.void(request, options));
  }

  refund(request: RefundRequest, options?: AcquirerCallOptions): Promise<RefundResult> {
    return this.count('REFUND', () => this.connector.refund(request, options));
  }

  inquire(request: InquiryRequest, options?: AcquirerCallOptions): Promise<InquiryResult> {
    return this.count('INQUIRE', () => this.connector.inquire(request, options));
  }

  private async count<T extends { gatewayCode: string }>(
    operation: AcquirerOperation | 'INQUIRE',
    call: () => Promise<T>,
  ): Promise<T> {
    try {
      const result = await call();
      this.requests.inc({ acquirer: this.acquirerId, operation, outcome: result.gatewayCode });
      return result;
    } catch (err) {
      this.requests.inc({ acquirer: this.acquirerId, operation, outcome: 'ERROR' });
      throw err;
    }
  }
}
