import { randomBytes } from 'node:crypto';
import {
  ACQUIRER_REQUESTS_METRIC,
  AcquirerRegistry,
  expiryForResponse,
  Pan,
  TestAcquirer,
  VerifyCardResult,
} from '@gateway/acquirer';
import {
  BeginOperationMessage,
  BeginOperationReply,
  defaultMerchantSettings,
  GatewayError,
  JsonObject,
  LedgerOrderView,
  MerchantContext,
  RecordOperationMessage,
  RequestEnvelope,
  validateOrderOperationRequest,
} from '@gateway/contracts';
import { AppLogger, Metrics, PastDeadlineError, RequestHasher } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { StoredCardAcquirer, StoredCardVerification } from '../card-custody/stored-card-acquirer';
import type { AgreementOrigin, AgreementRepository, AgreementTermsRow, SeenOrder, StoredAgreement } from '@gateway/order-transaction/data-access';
import { Agreements } from '../../agreements/agreements';
import { Begun, BeginOperation } from '../../begin-operation/begin-operation.use-case';
import { RecordOperation } from '../../record-operation/record-operation.use-case';
import { UNRECORDED_VERIFICATIONS_METRIC, VerifyCard } from './verify-card.use-case';

const NOW = new Date('2026-11-21T10:15:30.123Z');
const STORED_BODY: JsonObject = { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, stored: true };

/**
 * The use case around its ports: the ledger and the token vault are fakes that record what
 * they were sent; the acquirer is the real test acquirer behind the real registry, counted on
 * the real metrics.
 */
class FakeLedger {
  beginReply: BeginOperationReply = { outcome: 'PROCEED', order: null };
  /** The order as begin's read saw it (null: none). */
  seen: SeenOrder | null = null;
  recordError?: Error;
  /** What the ledger holds for the same request recorded first (a copy racing past begin): answered instead. */
  recordedFirst?: JsonObject;
  readonly begun: BeginOperationMessage[] = [];
  readonly recorded: RecordOperationMessage[] = [];
  /** The view each record was given. */
  readonly recordedOn: (SeenOrder | null | undefined)[] = [];

  async begin(message: BeginOperationMessage): Promise<Begun> {
    this.begun.push(message);
    return { reply: this.beginReply, seen: this.seen, targetResponses: new Map() };
  }

  async record(message: RecordOperationMessage, _step?: string, seen?: SeenOrder | null) {
    this.recorded.push(message);
    this.recordedOn.push(seen);
    if (this.recordError) {
      throw this.recordError;
    }
    if (this.recordedFirst) {
      return { body: this.recordedFirst, replayed: true };
    }
    // As the ledger does: the body stored and answered is the response, card numbers masked.
    return { body: { ...message.response, recorded: true }, replayed: false };
  }
}

class FakeVault implements StoredCardAcquirer {
  readonly verifications: StoredCardVerification[] = [];
  readonly binLookups: string[] = [];

  async verify(verification: StoredCardVerification) {
    this.verifications.push(verification);
    const result: VerifyCardResult = await new TestAcquirer({ now: () => NOW }).verify({
      ...verification.request,
      card: { ...verification.request.card, number: Pan.of(TEST_CARD), expiry: { month: 5, year: 39 } },
    });
    return {
      result,
      card: {
        number: '512345xxxxxx0008',
        expiry: expiryForResponse(result.card.expiry),
        nameOnCard: 'Stored Name',
      },
    };
  }

  async binOf(_envelope: RequestEnvelope, token: string): Promise<string> {
    this.binLookups.push(token);
    return '512345';
  }
}

/** The agreements table in memory: what was read and written, keyed as the table is. */
class FakeAgreementTable {
  readonly rows = new Map<string, StoredAgreement>();
  readonly reads: string[] = [];

  async find(merchantId: string, agreementId: string): Promise<StoredAgreement | null> {
    this.reads.push(agreementId);
    return this.rows.get(`${merchantId}/${agreementId}`) ?? null;
  }

  async establish(merchantId: string, agreementId: string, terms: AgreementTermsRow, origin: AgreementOrigin): Promise<boolean> {
    const key = `${merchantId}/${agreementId}`;
    if (this.rows.has(key)) return false;
    this.rows.set(key, { merchantId, agreementId, ...terms, established: origin });
    return true;
  }
}

/** The test acquirer, keeping what it was asked to verify (whatever the merchant's latency). */
class RecordingAcquirer extends TestAcquirer {
  readonly requests: Parameters<TestAcquirer['verify']>[0][] = [];

  override withLatency(): TestAcquirer {
    return this;
  }

  override verify(...args: Parameters<TestAcquirer['verify']>): ReturnType<TestAcquirer['verify']> {
    this.requests.push(args[0]);
    return super.verify(...args);
  }
}

interface Harness {
  useCase: VerifyCard;
  ledger: FakeLedger;
  vault: FakeVault;
  agreements: FakeAgreementTable;
  /** What the acquirer was asked to verify, in order. */
  acquirerRequests: Parameters<TestAcquirer['verify']>[0][];
  metrics: Metrics;
  warnings: unknown[];
  errors: unknown[];
}

const HASHER = RequestHasher.fromText(randomBytes(32).toString('base64'));

function harness(now: Date = NOW): Harness {
  const ledger = new FakeLedger();
  const vault = new FakeVault();
  const metrics = new Metrics();
  const warnings: unknown[] = [];
  const errors: unknown[] = [];
  const logger = {
    warn: (fields: unknown) => warnings.push(fields),
    error: (fields: unknown) => errors.push(fields),
  } as unknown as AppLogger;
  const acquirer = new RecordingAcquirer({ now: () => now });
  const acquirers = new AcquirerRegistry(metrics, acquirer);
  const agreements = new FakeAgreementTable();
  const useCase = new VerifyCard(
    { read: (message: BeginOperationMessage) => ledger.begin(message) } as unknown as BeginOperation,
    { execute: (message: RecordOperationMessage, step?: string, seen?: SeenOrder | null) => ledger.record(message, step, seen) } as unknown as RecordOperation,
    acquirers,
    vault,
    () => now,
    logger,
    metrics,
    HASHER,
    new Agreements(agreements as unknown as AgreementRepository, logger),
  );
  return { useCase, ledger, vault, agreements, acquirerRequests: acquirer.requests, metrics, warnings, errors };
}

function merchant(overrides: Partial<MerchantContext> = {}): MerchantContext {
  return { id: 'TESTMERCHANT1', mode: 'TEST', settings: defaultMerchantSettings(), ...overrides };
}

function envelope(overrides: Partial<RequestEnvelope> = {}): RequestEnvelope {
  return {
    merchant: merchant(),
    apiVersion: 100,
    requestId: 'req-1',
    authMethod: 'PASSWORD',
    fencingToken: '7',
    ...overrides,
  };
}

function body(extra: JsonObject = {}, card: JsonObject = {}): JsonObject {
  return {
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: {
      type: 'CARD',
      provided: {
        card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '100', ...card },
      },
    },
    ...extra,
  };
}

function command(raw: JsonObject, env: RequestEnvelope = envelope()) {
  return {
    envelope: env,
    orderId: 'order-1',
    transactionId: 'verify-1',
    request: validateOrderOperationRequest('VERIFY', raw),
    body: raw,
  };
}

async function acquirerCalls(metrics: Metrics): Promise<number> {
  const metric = metrics.registry.getSingleMetric(ACQUIRER_REQUESTS_METRIC);
  const values = metric ? (await metric.get()).values : [];
  return values.reduce((sum, value) => sum + value.value, 0);
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected the verification to be refused');
}

describe('VERIFY', () => {
  it('refuses, unprocessed, a verification whose deadline passed before it began: no acquirer call, nothing recorded', async () => {
    const { useCase, ledger, vault, metrics } = harness();
    const late = await rejection(useCase.execute({ ...command(body()), deadline: Date.now() - 1 }));
    expect(late).toBeInstanceOf(PastDeadlineError);
    expect(late.toWire()).toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
    expect(await acquirerCalls(metrics)).toBe(0);
    expect(vault.verifications).toEqual([]);
    expect(ledger.recorded).toEqual([]);
  });

  it('answers a replay past its deadline as stored (it changes nothing), and verifies one in time', async () => {
    const replaying = harness();
    replaying.ledger.beginReply = { outcome: 'REPLAY', body: STORED_BODY };
    expect(await replaying.useCase.execute({ ...command(body()), deadline: Date.now() - 1 })).toEqual({ body: STORED_BODY });

    const { useCase, ledger, metrics } = harness();
    await useCase.execute({ ...command(body()), deadline: Date.now() + 60_000 });
    expect(await acquirerCalls(metrics)).toBe(1);
    expect(ledger.recorded).toHaveLength(1);
  });

  it('begins with the ledger, verifies an explicit card at the acquirer once and answers what the ledger recorded', async () => {
    const { useCase, ledger, metrics } = harness();
    const raw = body({
      correlationId: 'c-1',
      order: { currency: 'USD', notificationUrl: 'https://merchant.example/hook' },
    });

    const reply = await useCase.execute(command(raw));

    expect(ledger.begun).toEqual([
      expect.objectContaining({
        orderId: 'order-1',
        transactionId: 'verify-1',
        apiOperation: 'VERIFY',
        requestHash: HASHER.hash(raw),
      }),
    ]);
    expect(await acquirerCalls(metrics)).toBe(1);
    const [record] = ledger.recorded;
    expect(record).toMatchObject({
      envelope: { fencingToken: '7' },
      apiOperation: 'VERIFY',
      requestHash: HASHER.hash(raw),
      mode: 'CREATE',
      // Begin saw no order: the ledger may write the new order in one statement.
      newOrder: true,
      order: { currency: 'USD', notificationUrl: 'https://merchant.example/hook' },
      transaction: {
        type: 'VERIFICATION',
        amount: '0.00',
        currency: 'USD',
        result: 'SUCCESS',
        gatewayCode: 'APPROVED',
        fundingType: 'CARD',
      },
      response: {
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'MATCH' } },
        sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } }, type: 'CARD' },
        timeOfRecord: NOW.toISOString(),
      },
    });
    expect(record.order.amount).toBeUndefined();
    expect(JSON.stringify(record)).not.toContain(TEST_CARD);
    expect(reply.body).toEqual({ ...record.response, recorded: true });
  });

  it('does not hint a new order to the ledger when begin saw the order, and records on the order as begin read it', async () => {
    const { useCase, ledger } = harness();
    ledger.seen = { order: { orderId: 'order-1' }, contents: { transactions: [], stored: null }, version: '7' } as unknown as SeenOrder;
    ledger.beginReply = {
      outcome: 'PROCEED',
      order: {
        id: 'order-1',
        currency: 'USD',
        amount: '0',
        status: 'VERIFIED',
        totalAuthorizedAmount: '0',
        totalCapturedAmount: '0',
        totalRefundedAmount: '0',
        creationTime: NOW.toISOString(),
        lastUpdatedTime: NOW.toISOString(),
        transactions: [],
      },
    };
    await useCase.execute(command(body()));
    expect(ledger.recorded).toHaveLength(1);
    expect(ledger.recorded[0].newOrder).toBeUndefined();
    expect(ledger.recordedOn).toEqual([ledger.seen]);
  });

  it('answers a replay with the stored body, without calling the acquirer or recording', async () => {
    const { useCase, ledger, metrics } = harness();
    ledger.beginReply = { outcome: 'REPLAY', body: STORED_BODY };

    expect(await useCase.execute(command(body()))).toEqual({ body: STORED_BODY });
    expect(await acquirerCalls(metrics)).toBe(0);
    expect(ledger.recorded).toHaveLength(0);
  });

  describe('business rules, checked after begin and before the acquirer', () => {
    const agreement = { id: 'agr-1', type: 'RECURRING', amountVariability: 'FIXED', startDate: '2026-11-19' };

    it('refuses an agreement starting in the past by the clock, with nothing sent or recorded', async () => {
      const { useCase, ledger, metrics } = harness();
      const error = await rejection(useCase.execute(command(body({ agreement }))));
      expect(error).toMatchObject({
        code: 'INVALID_FIELD',
        field: 'agreement.startDate',
        validationType: 'INVALID',
      });
      expect(await acquirerCalls(metrics)).toBe(0);
      expect(ledger.recorded).toHaveLength(0);
    });

    it('accepts the same start date while it is still today somewhere, and stores the agreement with the order', async () => {
      const { useCase, ledger } = harness(new Date('2026-11-19T20:00:00.000Z'));
      await useCase.execute(command(body({ agreement })));
      expect(ledger.recorded[0].order.details).toMatchObject({
        agreement: { id: 'agr-1', startDate: '2026-11-19' },
      });
    });

    it('replays a verification whose agreement start date has passed since', async () => {
      const { useCase, ledger } = harness();
      ledger.beginReply = { outcome: 'REPLAY', body: STORED_BODY };
      expect((await useCase.execute(command(body({ agreement })))).body).toBe(STORED_BODY);
    });

    it("refuses a currency other than the existing order's before calling the acquirer", async () => {
      const { useCase, ledger, metrics } = harness();
      ledger.beginReply = { outcome: 'PROCEED', order: { currency: 'EUR' } as LedgerOrderView };
      const error = await rejection(useCase.execute(command(body())));
      expect(error).toMatchObject({ field: 'order.currency', validationType: 'INVALID' });
      expect(error.explanation).toBe("Value 'USD' is invalid. The order's currency is EUR.");
      expect(await acquirerCalls(metrics)).toBe(0);
    });

    it('refuses two request rules for one AVS code', async () => {
      const rules = [
        { avsResponseCode: 'NO_MATCH', action: 'REJECT' },
        { avsResponseCode: 'NO_MATCH', action: 'NO_ACTION' },
      ];
      const { useCase } = harness();
      const error = await rejection(
        useCase.execute(
          command(
            body({ order: { currency: 'USD', transactionFiltering: { avsResponseCodeRules: rules } } }),
          ),
        ),
      );
      expect(error).toMatchObject({
        field: 'order.transactionFiltering.avsResponseCodeRules[1].avsResponseCode',
      });
    });

    it('refuses a card type for a card that offers no selection', async () => {
      const { useCase, metrics } = harness();
      const error = await rejection(useCase.execute(command(body({}, { cardType: 'CREDIT' }))));
      expect(error).toMatchObject({
        field: 'sourceOfFunds.provided.card.cardType',
        validationType: 'UNSUPPORTED',
      });
      expect(await acquirerCalls(metrics)).toBe(0);
    });

    it('asks for a card number when neither the card nor a token gives one', async () => {
      const { useCase } = harness();
      const raw = body();
      (raw.sourceOfFunds as JsonObject).provided = { card: { expiry: { ...TEST_EXPIRY.APPROVED } } };
      const error = await rejection(useCase.execute(command(raw)));
      expect(error).toMatchObject({ field: 'sourceOfFunds.provided.card.number', validationType: 'MISSING' });
    });
  });

  describe('an agreement named by its id (docs/decisions/agreements.md)', () => {
    const established = {
      id: 'agr-9',
      type: 'RECURRING',
      amountVariability: 'FIXED',
      startDate: '2026-11-25',
      minimumAmountPerPayment: '5.50',
      paymentFrequency: 'MONTHLY',
    };
    const second = (extra: JsonObject = {}) => command(body({ agreement: { id: 'agr-9', ...extra } }), envelope());

    it('is established by the first successful verification, with where and when', async () => {
      const { useCase, agreements } = harness();
      await useCase.execute(command(body({ agreement: established })));
      expect(agreements.rows.get('TESTMERCHANT1/agr-9')).toEqual({
        merchantId: 'TESTMERCHANT1',
        agreementId: 'agr-9',
        type: 'RECURRING',
        amountVariability: 'FIXED',
        startDate: '2026-11-25',
        minimumAmountPerPayment: '5.50',
        amountCurrency: 'USD',
        paymentFrequency: 'MONTHLY',
        established: { orderId: 'order-1', transactionId: 'verify-1', apiOperation: 'VERIFY', at: NOW },
      });
    });

    it('fills what a later verification leaves out: the acquirer, the response and the order get the established terms', async () => {
      const { useCase, agreements, ledger, acquirerRequests } = harness();
      await useCase.execute(command(body({ agreement: established })));
      const reply = await useCase.execute(second());
      const filled = { ...established, minimumAmountPerPayment: 5.5 };
      expect(reply.body.agreement).toEqual(filled);
      expect(acquirerRequests[1].agreement).toEqual(established);
      expect(ledger.recorded[1].order.details).toMatchObject({ agreement: filled });
      // Nothing written the second time: the first payment's terms stay.
      expect(agreements.rows.size).toBe(1);
    });

    it('takes a term the later request gives for that verification only', async () => {
      const { useCase, agreements } = harness();
      await useCase.execute(command(body({ agreement: established })));
      const reply = await useCase.execute(second({ amountVariability: 'VARIABLE', numberOfPayments: 3 }));
      expect(reply.body.agreement).toMatchObject({ type: 'RECURRING', amountVariability: 'VARIABLE', numberOfPayments: 3 });
      expect(agreements.rows.get('TESTMERCHANT1/agr-9')).toMatchObject({ amountVariability: 'FIXED' });
      expect(agreements.rows.get('TESTMERCHANT1/agr-9')).not.toHaveProperty('numberOfPayments');
    });

    it('accepts the established start date once it has passed, left out or repeated; another start date the request gives must still be today or later', async () => {
      const first = harness();
      await first.useCase.execute(command(body({ agreement: established })));
      const later = harness(new Date('2027-03-01T10:00:00.000Z'));
      later.agreements.rows.set('TESTMERCHANT1/agr-9', first.agreements.rows.get('TESTMERCHANT1/agr-9')!);
      const reply = await later.useCase.execute(second());
      expect(reply.body.agreement).toMatchObject({ startDate: '2026-11-25' });
      const repeated = await later.useCase.execute(second({ startDate: '2026-11-25' }));
      expect(repeated.body.agreement).toMatchObject({ startDate: '2026-11-25' });
      const error = await rejection(later.useCase.execute(second({ startDate: '2026-11-26' })));
      expect(error).toMatchObject({ field: 'agreement.startDate', validationType: 'INVALID' });
    });

    it('refuses another type than the established one with a 400 on agreement.type, before the acquirer and with nothing recorded', async () => {
      const { useCase, ledger, metrics } = harness();
      await useCase.execute(command(body({ agreement: established })));
      const calls = await acquirerCalls(metrics);
      const error = await rejection(useCase.execute(second({ type: 'INSTALLMENT' })));
      expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'agreement.type', validationType: 'INVALID' });
      expect(error.explanation).toBe(
        "Value 'INSTALLMENT' is invalid. Agreement 'agr-9' was established as RECURRING by its first payment; an agreement's type does not change.",
      );
      expect(await acquirerCalls(metrics)).toBe(calls);
      expect(ledger.recorded).toHaveLength(1);
    });

    it('is not established by a declined verification: the next approved one establishes it with its own terms', async () => {
      const { useCase, agreements, ledger } = harness();
      await useCase.execute(command(body({ agreement: established }, { expiry: { ...TEST_EXPIRY.DECLINED } })));
      expect(ledger.recorded[0].transaction.result).toBe('FAILURE');
      expect(agreements.rows.size).toBe(0);
      await useCase.execute(command(body({ agreement: { id: 'agr-9', type: 'UNSCHEDULED' } })));
      expect(agreements.rows.get('TESTMERCHANT1/agr-9')).toMatchObject({ type: 'UNSCHEDULED' });
    });

    it('is established by what the ledger recorded: a copy of the request recorded first as declined establishes nothing', async () => {
      const { useCase, agreements, ledger } = harness();
      // This copy was approved, but the one racing past begin was recorded first, declined: the
      // transaction is a FAILURE, and that is what this copy answers.
      const declined = { result: 'FAILURE', response: { gatewayCode: 'DECLINED' } };
      ledger.recordedFirst = declined;
      const reply = await useCase.execute(command(body({ agreement: established })));
      expect(reply.body).toEqual(declined);
      expect(agreements.rows.size).toBe(0);
    });

    it('costs a read only when the request names an agreement id', async () => {
      const { useCase, agreements } = harness();
      await useCase.execute(command(body()));
      await useCase.execute(command(body({ agreement: { type: 'UNSCHEDULED' } })));
      expect(agreements.reads).toEqual([]);
      await useCase.execute(command(body({ agreement: { id: 'agr-9', type: 'UNSCHEDULED' } })));
      expect(agreements.reads).toEqual(['agr-9']);
    });

    it('answers the verification even when establishing fails, and logs it', async () => {
      const { useCase, agreements, errors } = harness();
      agreements.establish = () => Promise.reject(new Error('Connection terminated unexpectedly'));
      const reply = await useCase.execute(command(body({ agreement: established })));
      expect(reply.body).toMatchObject({ result: 'SUCCESS', recorded: true });
      expect(errors).toEqual([expect.objectContaining({ agreementId: 'agr-9', orderId: 'order-1' })]);
    });
  });

  it('refuses a live merchant before anything is recorded', async () => {
    const { useCase, ledger } = harness();
    const error = await rejection(
      useCase.execute(command(body(), envelope({ merchant: merchant({ mode: 'LIVE' }) }))),
    );
    expect(error).toMatchObject({ code: 'ACQUIRER_NOT_CONFIGURED' });
    expect(ledger.recorded).toHaveLength(0);
  });

  it('records a REJECT rule on the AVS code as DECLINED_AVS', async () => {
    const { useCase, ledger } = harness();
    const raw = body({
      billing: { address: { street: 'NO_MATCH' } },
      order: {
        currency: 'USD',
        transactionFiltering: { avsResponseCodeRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }] },
      },
    });
    await useCase.execute(command(raw));
    expect(ledger.recorded[0].transaction).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED_AVS' });
  });

  it('keeps billing, shipping with its derived sameAsBilling, customer and tax fields with the order', async () => {
    const { useCase, ledger } = harness();
    const address = { street: '12 Main St.', city: 'Springfield', postcodeZip: '10001', country: 'USA' };
    await useCase.execute(
      command(
        body({
          billing: { address },
          shipping: { address: { ...address, street: '12, Main St' } },
          customer: { firstName: 'Ada', identification: { type: 'PASSPORT', value: 'X1' } },
          order: { currency: 'USD', taxStatus: 'EXEMPT' },
        }),
      ),
    );
    expect(ledger.recorded[0].order.details).toEqual({
      billing: { address },
      shipping: { address: { ...address, street: '12, Main St', sameAsBilling: 'SAME' } },
      customer: { firstName: 'Ada', identification: { type: 'PASSPORT', value: 'X1' } },
      taxStatus: 'EXEMPT',
    });
  });

  describe('UNMASK', () => {
    const unmask = { responseControls: { sensitiveData: 'UNMASK' } };
    const privileged = merchant({
      settings: {
        ...defaultMerchantSettings(),
        privileges: { ...defaultMerchantSettings().privileges, unmask: true },
      },
    });

    it('shows the number the merchant sent in the reply only; the ledger records it masked', async () => {
      const { useCase, ledger } = harness();
      const reply = await useCase.execute(
        command(body(unmask), envelope({ merchant: privileged, authMethod: 'CERTIFICATE' })),
      );
      expect(reply.body).toMatchObject({ sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
      expect(JSON.stringify(ledger.recorded)).not.toContain(TEST_CARD);
    });

    it('shows it only to the copy of the request that was recorded: one racing past begin is answered the stored body, masked', async () => {
      const { useCase, ledger } = harness();
      ledger.recordedFirst = { result: 'SUCCESS', sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } } };
      const reply = await useCase.execute(
        command(body(unmask), envelope({ merchant: privileged, authMethod: 'CERTIFICATE' })),
      );
      expect(reply.body).toBe(ledger.recordedFirst);
    });

    it.each([
      ['without the privilege', envelope({ authMethod: 'CERTIFICATE' })],
      ['with password authentication', envelope({ merchant: privileged, authMethod: 'PASSWORD' })],
    ])('is a 400 on responseControls.sensitiveData %s', async (_label, env) => {
      const { useCase, metrics } = harness();
      const error = await rejection(useCase.execute(command(body(unmask), env)));
      expect(error).toMatchObject({ field: 'responseControls.sensitiveData', validationType: 'INVALID' });
      expect(await acquirerCalls(metrics)).toBe(0);
    });
  });

  describe('a stored card', () => {
    const tokenBody = () => {
      const raw = body();
      raw.sourceOfFunds = {
        type: 'CARD',
        token: '9123456789012346',
        provided: { card: { securityCode: '102' } },
      };
      return raw;
    };

    it('goes to the token vault with the token, the explicit values and an acquirer request without card details', async () => {
      const { useCase, vault, metrics } = harness();
      const reply = await useCase.execute(command(tokenBody()));

      expect(await acquirerCalls(metrics)).toBe(0);
      expect(vault.verifications).toHaveLength(1);
      const [sent] = vault.verifications;
      expect(sent.source).toEqual({ token: '9123456789012346' });
      expect(sent.explicit).toEqual({ securityCode: '102' });
      expect(sent.request).toMatchObject({
        merchantId: 'TESTMERCHANT1',
        orderId: 'order-1',
        transactionId: 'verify-1',
        currency: 'USD',
      });
      expect(sent.request.card).toBeUndefined();
      expect(reply.body).toMatchObject({
        response: { gatewayCode: 'DECLINED' },
        sourceOfFunds: {
          token: '9123456789012346',
          provided: {
            card: {
              number: '512345xxxxxx0008',
              nameOnCard: 'Stored Name',
              expiry: { month: '5', year: '39' },
            },
          },
        },
      });
    });

    it("uses explicit number and expiry alone, without the vault, since they win over the token's", async () => {
      const { useCase, vault, metrics } = harness();
      const raw = body();
      (raw.sourceOfFunds as JsonObject).token = '9123456789012346';
      await useCase.execute(command(raw));
      expect(vault.verifications).toHaveLength(0);
      expect(await acquirerCalls(metrics)).toBe(1);
    });

    it("goes to the token vault with the named session's sealed card, and the token and explicit values beside it", async () => {
      const { useCase, vault, metrics } = harness();
      const session = { id: 'SESSION0002ABCDEFGHIJKLMNOPQRSTU', sealedCard: 'sealed-by-the-vault' };
      await useCase.execute({ ...command(tokenBody()), session });
      const raw = body();
      raw.sourceOfFunds = { type: 'CARD', provided: { card: { expiry: { ...TEST_EXPIRY.EXPIRED_CARD } } } };
      await useCase.execute({ ...command(raw), session });

      expect(await acquirerCalls(metrics)).toBe(0);
      expect(vault.verifications.map((v) => [v.source, v.explicit])).toEqual([
        [{ token: '9123456789012346', sealed: { value: 'sealed-by-the-vault', bindingId: session.id } }, { securityCode: '102' }],
        [{ sealed: { value: 'sealed-by-the-vault', bindingId: session.id } }, { expiry: { month: '4', year: '27' } }],
      ]);
    });

    it('checks a requested card type on the vault\'s answer when the card is a session\'s', async () => {
      const { useCase, vault } = harness();
      const raw = body();
      raw.sourceOfFunds = { type: 'CARD', provided: { card: { cardType: 'CREDIT' } } };
      const error = await rejection(useCase.execute({ ...command(raw), session: { id: 'SESSION0002ABCDEFGHIJKLMNOPQRSTU', sealedCard: 's' } }));
      expect(error).toMatchObject({ field: 'sourceOfFunds.provided.card.cardType', validationType: 'UNSUPPORTED' });
      expect(vault.binLookups).toEqual([]);
    });

    it("checks a requested card type against the stored card's BIN before the vault calls the acquirer", async () => {
      const { useCase, vault } = harness();
      const raw = tokenBody();
      (raw.sourceOfFunds as { provided: { card: JsonObject } }).provided.card.cardType = 'CREDIT';
      const error = await rejection(useCase.execute(command(raw)));
      expect(error).toMatchObject({
        field: 'sourceOfFunds.provided.card.cardType',
        validationType: 'UNSUPPORTED',
      });
      expect(vault.binLookups).toEqual(['9123456789012346']);
      expect(vault.verifications).toHaveLength(0);
    });
  });

  describe('when the ledger does not record after the acquirer answered', () => {
    it('answers the ledger error, and counts and logs the unrecorded call with acquirer references only', async () => {
      const { useCase, ledger, metrics, warnings } = harness();
      ledger.recordError = new GatewayError('ORDER_LOCK_LOST');
      const error = await rejection(useCase.execute(command(body())));
      expect(error).toMatchObject({ code: 'ORDER_LOCK_LOST' });
      const counted = (await metrics.registry.getSingleMetric(UNRECORDED_VERIFICATIONS_METRIC)!.get()).values;
      expect(counted).toEqual([expect.objectContaining({ labels: { code: 'ORDER_LOCK_LOST' }, value: 1 })]);
      expect(warnings).toEqual([
        expect.objectContaining({
          orderId: 'order-1',
          transactionId: 'verify-1',
          gatewayCode: 'APPROVED',
          code: 'ORDER_LOCK_LOST',
          acquirerTransactionId: expect.stringMatching(/^MCC/),
          receipt: expect.any(String),
        }),
      ]);
      expect(JSON.stringify(warnings)).not.toContain(TEST_CARD);
    });
  });
});
