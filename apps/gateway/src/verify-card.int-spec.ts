import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import {
  CardVerificationReply,
  defaultMerchantSettings,
  GatewayError,
  JsonObject,
  MerchantContext,
  OperationReply,
  OrderOperationMessage,
  RecordOperationMessage,
  SUBJECTS,
} from '@gateway/contracts';
import { BeginOperation } from '@gateway/order-transaction/domain';
import { OrderTransactionConfig, OrderTransactionModule } from '@gateway/order-transaction/feature';
import {
  bootstrapApp,
  createLogger,
  createMessageServer,
  loadConfig,
  MessageBus,
  messagingOptions,
  Metrics,
  PlatformModule,
  RunningApp,
} from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testRequestHasher, testRequestHashKey, waitFor } from '@gateway/testing';
import { VerificationConfig, VerificationModule } from '@gateway/verification/feature';

/**
 * order-transaction, which serves VERIFY with its own ledger, and the verification service, on
 * the in-process bus (the standalone profile's wiring) and the run's Postgres: what happens
 * between VERIFY's acquirer call and its record, which no HTTP test can steer, and the vault's
 * ACQUIRER verification subject.
 */
let running: RunningApp;
let bus: MessageBus;
let metrics: Metrics;

beforeAll(async () => {
  const env = {
    GATEWAY_PROFILE: 'standalone',
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: '4',
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    REQUEST_HASH_KEY: testRequestHashKey(),
  };
  const config = loadConfig(VerificationConfig, env);
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  metrics = new Metrics();
  const messaging = messagingOptions(config, 'gateway');
  @Module({
    imports: [
      PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 1_000 }),
      OrderTransactionModule.forRoot(loadConfig(OrderTransactionConfig, env)),
      VerificationModule.forRoot(config),
    ],
  })
  class VerifyTestModule {}
  running = await bootstrapApp({
    module: VerifyTestModule,
    logger,
    host: config.HTTP_HOST,
    port: config.HTTP_PORT,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
  });
  bus = running.app.get(MessageBus);
});

afterEach(() => {
  jest.restoreAllMocks();
});

afterAll(async () => {
  await running?.shutdown('tests done');
});

function testMerchant(latencyMs = 0): MerchantContext {
  const settings = defaultMerchantSettings();
  return {
    id: `INTV${randomBytes(5).toString('hex').toUpperCase()}`,
    mode: 'TEST',
    settings: { ...settings, testAcquirer: { latencyMs } },
  };
}

function envelope(merchant: MerchantContext, fencingToken: string) {
  return {
    merchant,
    apiVersion: 100,
    requestId: `req-${randomBytes(4).toString('hex')}`,
    authMethod: 'PASSWORD' as const,
    fencingToken,
  };
}

/** A counter's total, or a histogram's observation count, over the samples carrying `labels`. */
async function samples(name: string, labels: Record<string, string>): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  const values = metric ? (await metric.get()).values : [];
  return values
    // Histograms list _bucket, _sum and _count samples; counters one sample per label set.
    .filter((v) => {
      const metricName = (v as { metricName?: string }).metricName;
      return metricName === undefined || metricName === `${name}_count`;
    })
    .filter((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('a VERIFY whose record the ledger refuses after the acquirer answered', () => {
  it('answers ORDER_LOCK_LOST, records nothing of it, and counts the unrecorded verification', async () => {
    const merchant = testMerchant(1_500);
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    const body: JsonObject = {
      apiOperation: 'VERIFY',
      order: { currency: 'USD' },
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } },
      },
    };
    // The ledger's own begin, watched (not replaced): the newer record must come after it.
    const begin = jest.spyOn(running.app.get(BeginOperation), 'read');
    const acquirerCallsBefore = await samples('gateway_acquirer_requests_total', { operation: 'VERIFY' });

    // The verify holds fencing token 1000 and spends 1.5 s at the acquirer...
    const message: OrderOperationMessage = {
      envelope: envelope(merchant, '1000'),
      apiOperation: 'VERIFY',
      orderId,
      transactionId: 'verify-a',
      body,
    };
    const verifying = bus.request<OperationReply>(SUBJECTS.orderTransaction.verify, message).then(
      () => null,
      (err: unknown) => err,
    );
    await waitFor(async () => begin.mock.calls.some(([begun]) => begun.orderId === orderId), {
      what: 'the verification to begin with the ledger',
    });
    await begin.mock.results[begin.mock.calls.findIndex(([begun]) => begun.orderId === orderId)].value;

    // ...while an operation holding a newer token (its lock came after ours lapsed) records.
    const newer: RecordOperationMessage = {
      envelope: envelope(merchant, '2000'),
      orderId,
      transactionId: 'verify-b',
      apiOperation: 'VERIFY',
      requestHash: testRequestHasher().hash({ apiOperation: 'VERIFY', transactionId: 'verify-b' }),
      mode: 'CREATE',
      order: { currency: 'USD' },
      transaction: {
        type: 'VERIFICATION',
        amount: '0',
        currency: 'USD',
        result: 'SUCCESS',
        gatewayCode: 'APPROVED',
      },
      response: {},
    };
    await bus.request(SUBJECTS.orderTransaction.ledgerRecord, newer);

    const error = await verifying;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'ORDER_LOCK_LOST' });
    expect(await samples('gateway_acquirer_requests_total', { operation: 'VERIFY' })).toBe(
      acquirerCallsBefore + 1,
    );
    expect(await samples('gateway_verifications_unrecorded_total', { code: 'ORDER_LOCK_LOST' })).toBe(1);

    const order = await bus.request<OperationReply>(SUBJECTS.orderTransaction.retrieveOrder, {
      envelope: envelope(merchant, '2000'),
      orderId,
    });
    const transactions = order.body.transaction as JsonObject[];
    expect(transactions.map((t) => (t.transaction as JsonObject).id)).toEqual(['verify-b']);
  });
});

describe('verification.card.verify.v1 (the vault ACQUIRER strategy)', () => {
  const message = (merchant: MerchantContext, card: JsonObject, extra: JsonObject = {}) => ({
    envelope: { merchant, apiVersion: 57, requestId: 'req-token-1', authMethod: 'PASSWORD' },
    card,
    currency: 'USD',
    reference: 'tok-ref-1',
    ...extra,
  });

  it("answers the acquirer's outcome with CSC and AVS results and the card masked, and records no order", async () => {
    const merchant = testMerchant();
    const reply = await bus.request<CardVerificationReply>(
      SUBJECTS.verification.verifyCard,
      message(
        merchant,
        { number: TEST_CARD, expiry: { ...TEST_EXPIRY.EXPIRED_CARD }, securityCode: '1000' },
        { billingAddress: { postcodeZip: '00009' } },
      ),
    );
    expect(reply).toEqual({
      gatewayCode: 'EXPIRED_CARD',
      result: 'FAILURE',
      acquirerCode: '54',
      acquirerMessage: 'Expired card',
      cardSecurityCode: { gatewayCode: 'MATCH', acquirerCode: 'M' },
      avs: { gatewayCode: 'NO_MATCH', acquirerCode: 'N' },
      card: {
        number: '512345xxxxxx0008',
        expiry: { month: '4', year: '27' },
        brand: 'MASTERCARD',
        scheme: 'MASTERCARD',
        fundingMethod: 'CREDIT',
      },
    });
    const order = bus.request(SUBJECTS.orderTransaction.retrieveOrder, {
      envelope: envelope(merchant, '1'),
      orderId: 'tok-ref-1',
    });
    await expect(order).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('treats a malformed message as a fault between services (SERVER_FAILED), never echoing the card', async () => {
    const error = await bus
      .request(
        SUBJECTS.verification.verifyCard,
        message(testMerchant(), { number: `${TEST_CARD}0000`, expiry: { month: '1', year: '39' } }),
      )
      .catch((err: unknown) => err as GatewayError);
    expect(error).toMatchObject({ code: 'SERVER_FAILED' });
    expect(JSON.stringify(error)).not.toContain(TEST_CARD);
  });
});
