import { randomBytes } from 'node:crypto';
import {
  BeginOperationMessage,
  BeginOperationReply,
  defaultMerchantSettings,
  GatewayError,
  JsonObject,
  LedgerOrderView,
  MerchantContext,
  validateOrderOperationRequest,
  RequestEnvelope,
} from '@gateway/contracts';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import { Money } from '@gateway/money';
import { createLogger, Metrics, RequestHasher } from '@gateway/platform';
import type { BrowserPaymentOptions, Clock } from '../browser-payment.options';
import { InitiateBrowserPayment } from '../initiate-browser-payment/initiate-browser-payment.use-case';
import { BrowserPaymentLedger, RecordStep, TRANSACTION_TYPE_OF } from '../ledger/browser-payment-ledger';
import { PayerJourneys } from '../payer-journey/payer-journeys';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import { PaymentSteps } from '../payment/payment-steps';
import { ProviderAdapters } from '../providers/provider-adapters';
import { InMemoryPaymentStore, InMemorySimulatorStore } from './in-memory-stores';

/**
 * The ledger as browser-payment's use cases see it, in memory: begin answers PROCEED (or a
 * REPLAY a test sets), record answers the response it was given, and a test can make the next
 * record fail to see what the use case does about it. It stores and reads back what it recorded,
 * with the fields the ledger sets.
 */
export class FakeLedger extends BrowserPaymentLedger {
  readonly begun: BeginOperationMessage[] = [];
  readonly recorded: RecordStep[] = [];
  replay: JsonObject | null = null;
  existingOrder: LedgerOrderView | null = null;
  failNextRecord: GatewayError | null = null;
  refuseNextBegin: GatewayError | null = null;
  unreadable: GatewayError | null = null;
  /** What the ledger stores per transaction: the body of its latest step. */
  readonly stored = new Map<string, JsonObject>();

  constructor() {
    super(undefined as never);
  }

  override async begin(message: BeginOperationMessage): Promise<BeginOperationReply> {
    if (this.refuseNextBegin) {
      const refusal = this.refuseNextBegin;
      this.refuseNextBegin = null;
      throw refusal;
    }
    this.begun.push(message);
    return this.replay ? { outcome: 'REPLAY', body: this.replay } : { outcome: 'PROCEED', order: this.existingOrder };
  }

  override async record(step: RecordStep): Promise<JsonObject> {
    if (this.failNextRecord) {
      const failure = this.failNextRecord;
      this.failNextRecord = null;
      throw failure;
    }
    this.recorded.push(structuredClone(step));
    const { payment } = step;
    // The fields the ledger sets on what it stores (ledger-response), and the step's name.
    const body: JsonObject = {
      ...step.response,
      result: payment.result,
      response: { gatewayCode: payment.gatewayCode },
      transaction: {
        ...(step.response.transaction as JsonObject),
        id: payment.transactionId,
        type: TRANSACTION_TYPE_OF[payment.operation],
        amount: Money.of(payment.amount, payment.currency).toJSON(),
        currency: payment.currency,
      },
      recordedAs: step.apiOperation,
    };
    this.stored.set(`${payment.orderId} ${payment.transactionId}`, body);
    return structuredClone(body);
  }

  /** The latest body stored for the payment's transaction; `unreadable` fails the read. */
  override async readRecord(_envelope: RequestEnvelope, payment: BrowserPaymentRow): Promise<JsonObject | null> {
    if (this.unreadable) {
      throw this.unreadable;
    }
    const body = this.stored.get(`${payment.orderId} ${payment.transactionId}`);
    return body ? structuredClone(body) : null;
  }
}

/** A clock the test moves. */
export class TestClock implements Clock {
  constructor(private current = new Date('2031-05-04T10:00:00.000Z')) {}

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export const TEST_OPTIONS: BrowserPaymentOptions = { publicBaseUrl: 'https://pay.gateway.test', tokenTtlMs: 60_000, confirmWindowMs: 3_600_000 };

export function testMerchant(mode: 'TEST' | 'LIVE' = 'TEST'): MerchantContext {
  return { id: 'SHOP1', mode, name: 'Book shop', settings: defaultMerchantSettings() };
}

export function envelopeFor(merchant: MerchantContext, authMethod: RequestEnvelope['authMethod'] = 'PASSWORD'): RequestEnvelope {
  return { merchant, apiVersion: 100, requestId: 'req-1', authMethod, fencingToken: '1000' };
}

/** The domain's collaborators wired as the feature module wires them, over in-memory stores. */
export function browserPaymentTestBed(options: BrowserPaymentOptions = TEST_OPTIONS) {
  const clock = new TestClock();
  const payments = new InMemoryPaymentStore(clock);
  const simulator = new InMemorySimulatorStore();
  const ledger = new FakeLedger();
  const providers = new ProviderAdapters(simulator, clock);
  const requestHasher = RequestHasher.fromText(randomBytes(32).toString('base64'));
  const metrics = new Metrics();
  const logger = createLogger({ service: 'test', level: (process.env.BP_TEST_LOG as 'silent') ?? 'silent' });
  const steps = new PaymentSteps(payments, ledger, clock, logger, requestHasher, metrics);
  const journeys = new PayerJourneys(payments, options);
  return { clock, payments, simulator, ledger, providers, steps, journeys, options, requestHasher, metrics };
}

export const RETURN_URL = 'https://shop.example/return';

export function initiateBody(extra: JsonObject = {}): JsonObject {
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: RETURN_URL },
    order: { amount: '20.00', currency: 'EUR', description: 'Two books', itemAmount: '20.00', item: [{ name: 'Book', quantity: '2', unitPrice: '10.00' }] },
    sourceOfFunds: { type: 'PROVIDER_A' },
    ...extra,
  };
}

export type TestBed = ReturnType<typeof browserPaymentTestBed>;

/** Initiates through the real use case; the payer's token as the redirect URL carries it. */
export async function initiatedPayment(bed: TestBed, body: JsonObject = initiateBody(), merchant = testMerchant()) {
  const initiate = new InitiateBrowserPayment(bed.payments, bed.providers, bed.ledger, bed.journeys, bed.options, bed.clock, bed.requestHasher);
  const response = await initiate.execute({
    envelope: envelopeFor(merchant),
    orderId: 'order-1',
    transactionId: 'bp-1',
    request: validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body),
    body,
  });
  const redirectUrl = (response.browserPayment as JsonObject).redirectUrl as string;
  const [, provider, token] = /\/bpui\/([a-z_]+)\/out\/(BP-[0-9a-f]{32})$/.exec(redirectUrl)!;
  return { response, redirectUrl, provider, token, merchant };
}

export function payerStep(merchant: MerchantContext, provider: string, token: string) {
  return { envelope: envelopeFor(merchant, 'PAYER'), provider, token };
}

/** A payment the payer approved at the provider and came back from (completed under CONFIRM_AT_PROVIDER). */
export async function approvedPayment(bed: TestBed, body: JsonObject = initiateBody()): Promise<MerchantContext> {
  const { merchant, provider, token } = await initiatedPayment(bed, body);
  const step = payerStep(merchant, provider, token);
  await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
  await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
  await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
  return merchant;
}

/** From now on, the bed's ledger refuses its `nth` record with SERVER_BUSY, once: a ledger away for a moment. */
export function ledgerBusyAtRecord(bed: TestBed, nth: number): void {
  const original = bed.ledger.record.bind(bed.ledger);
  let calls = 0;
  bed.ledger.record = async (record) => {
    calls += 1;
    if (calls === nth) {
      throw new GatewayError('SERVER_BUSY');
    }
    return original(record);
  };
}

/**
 * A payment the payer approved and came back from, the return recorded and its completion's
 * record refused: RETURNED_TO_MERCHANT, approved, PENDING, its execution still due.
 */
export async function interruptedCompletion(bed: TestBed) {
  const { provider, token, merchant } = await initiatedPayment(bed);
  const step = payerStep(merchant, provider, token);
  await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
  await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
  ledgerBusyAtRecord(bed, 2);
  const refused = await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step).then(
    () => null,
    (err: unknown) => err,
  );
  const { interactionStatus, payerOutcome, result } = bed.payments.only();
  if (!(refused instanceof GatewayError && refused.code === 'SERVER_BUSY') || interactionStatus !== 'RETURNED_TO_MERCHANT' || payerOutcome !== 'APPROVED' || result !== 'PENDING') {
    throw new Error(`the return's completion was not interrupted: ${JSON.stringify({ refused, interactionStatus, payerOutcome, result })}`);
  }
  return { provider, token, step, merchant };
}

/** initiateBody of a provider_a AUTHORIZE, confirmed at the provider. */
export function authorizeBody(): JsonObject {
  return initiateBody({
    browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_PROVIDER' } },
  });
}
