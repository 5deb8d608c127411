import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import {
  BeginOperationMessage,
  BeginOperationReply,
  defaultMerchantSettings,
  GatewayError,
  JsonObject,
  MerchantContext,
  MerchantSettings,
  RecordOperationMessage,
  OperationReply,
  ORDER_OPERATION_SUBJECTS,
  OrderApiOperation,
  OrderOperationMessage,
  RecordOperationReply,
  SUBJECTS,
} from '@gateway/contracts';
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
import { RecordOperation } from '@gateway/order-transaction/domain';
import { sentStatements, testRequestHasher, testRequestHashKey, waitFor } from '@gateway/testing';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { OrderTransactionConfig } from '../order-transaction.config';
import { OrderTransactionModule } from '../order-transaction.module';

/**
 * order-transaction as it runs in the standalone profile: its module, the platform, the
 * in-process message bus and the real Postgres of the integration run. Tests talk to it only
 * through the bus, as other services do.
 */
export interface LedgerTestApp {
  running: RunningApp;
  bus: MessageBus;
  dataSource: DataSource;
  metrics: Metrics;
  begin(message: BeginOperationMessage): Promise<BeginOperationReply>;
  record(message: RecordOperationMessage): Promise<RecordOperationReply>;
  refund(message: OrderOperationMessage): Promise<OperationReply>;
  /** Any order operation this service answers (AUTHORIZE, PAY, CAPTURE, VOID, REFUND), on its subject. */
  operate(message: OrderOperationMessage): Promise<OperationReply>;
}

export async function startLedgerTestApp(env: Record<string, string> = {}): Promise<LedgerTestApp> {
  const config = loadConfig(OrderTransactionConfig, {
    GATEWAY_PROFILE: 'standalone',
    DATABASE_URL: requiredEnv('TEST_DATABASE_URL'),
    // Enough connections for the concurrency tests to really run side by side.
    DATABASE_POOL_SIZE: '12',
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    // The ledger alone; webhook tests start dispatchers of their own.
    ORDER_TRANSACTION_MODE: 'serve',
    // No acquirer inquiries about UNKNOWN outcomes behind the tests' backs (the run's database is
    // shared); inquire-unknown.int-spec.ts runs them on a database of its own.
    UNKNOWN_INQUIRY_INTERVAL_MS: '0',
    ABANDONED_RESERVATION_SWEEP_INTERVAL_MS: '0',
    REQUEST_HASH_KEY: testRequestHashKey(),
    ...env,
  });
  const logger = createLogger({ service: 'order-transaction', level: 'silent' });
  const messaging = messagingOptions(config, 'order-transaction');
  const metrics = new Metrics();
  @Module({
    imports: [
      PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 1_000 }),
      OrderTransactionModule.forRoot(config),
    ],
  })
  class LedgerTestModule {}
  const running = await bootstrapApp({
    module: LedgerTestModule,
    logger,
    host: config.HTTP_HOST,
    port: config.HTTP_PORT,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
  });
  const bus = running.app.get(MessageBus);
  return {
    running,
    bus,
    dataSource: running.app.get<DataSource>(getDataSourceToken('order_transaction')),
    metrics,
    begin: (message) => bus.request(SUBJECTS.orderTransaction.ledgerBegin, message),
    record: (message) => bus.request(SUBJECTS.orderTransaction.ledgerRecord, message),
    refund: (message) => bus.request(SUBJECTS.orderTransaction.refund, message),
    operate: (message) => bus.request(ORDER_OPERATION_SUBJECTS[message.apiOperation], message),
  };
}

let fence = 2_000_000n;
/** A fencing token newer than every one handed out before, as the edge's lock gives them. */
export const nextFence = (): string => (fence += 1n).toString();

/**
 * `apiOperation` of `merchant` on `orderId` as the edge sends it (password authentication,
 * version 100, a new fencing token unless one is given): the reply's body.
 */
export async function operateAs(
  app: LedgerTestApp,
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  apiOperation: OrderApiOperation,
  body: JsonObject,
  fencingToken = nextFence(),
): Promise<JsonObject> {
  const reply = await app.operate({
    envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken },
    apiOperation,
    orderId,
    transactionId,
    body: { apiOperation, ...body },
  });
  return reply.body;
}

/** The GatewayError an operation was refused with (fails the test when it was not refused). */
export async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GatewayError) {
      return err;
    }
    throw err;
  }
  throw new Error('expected a refusal');
}

/** A merchant of its own per test: tests share the run's database and never truncate it. */
export function testMerchant(settings: Partial<MerchantSettings> = {}): MerchantContext {
  return {
    id: `INT${randomBytes(6).toString('hex').toUpperCase()}`,
    mode: 'TEST',
    settings: { ...defaultMerchantSettings(), ...settings },
  };
}

/** An order id of its own per test: tests share the run's database and never truncate it. */
export const newOrderId = (): string => `order-${randomBytes(5).toString('hex')}`;

export interface OperationSpec {
  merchant: MerchantContext;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  /** The merchant's request body: only its canonical hash travels. */
  request: JsonObject;
  fencingToken?: string;
}

/** An operation of `merchant` on `orderId`, its request body led by its apiOperation. */
export function operation(merchant: MerchantContext, orderId: string, transactionId: string, apiOperation: string, request: JsonObject = {}): OperationSpec {
  return { merchant, orderId, transactionId, apiOperation, request: { apiOperation, ...request } };
}

type Txn = RecordOperationMessage['transaction'];

/** A recorded transaction in USD, its gateway code following its result. */
export const txn = (type: Txn['type'], amount: string, result: Txn['result'] = 'SUCCESS', extra: Partial<Txn> = {}): Txn => ({
  type,
  amount,
  currency: 'USD',
  result,
  gatewayCode: result === 'SUCCESS' ? 'APPROVED' : result === 'PENDING' ? 'SUBMITTED' : 'DECLINED',
  ...extra,
});

export function beginMessage(spec: OperationSpec, addressesExistingTransaction?: boolean): BeginOperationMessage {
  return {
    envelope: envelopeOf(spec),
    orderId: spec.orderId,
    transactionId: spec.transactionId,
    apiOperation: spec.apiOperation,
    requestHash: testRequestHasher().hash(spec.request),
    ...(addressesExistingTransaction === undefined ? {} : { addressesExistingTransaction }),
  };
}

export function recordMessage(
  spec: OperationSpec,
  recorded: Pick<RecordOperationMessage, 'transaction'> & Partial<Pick<RecordOperationMessage, 'mode' | 'updates' | 'order' | 'response'>>,
): RecordOperationMessage {
  return {
    ...(recorded.updates ? { updates: recorded.updates } : {}),
    envelope: envelopeOf(spec),
    orderId: spec.orderId,
    transactionId: spec.transactionId,
    apiOperation: spec.apiOperation,
    requestHash: testRequestHasher().hash(spec.request),
    mode: recorded.mode ?? 'CREATE',
    order: recorded.order ?? { currency: recorded.transaction.currency },
    transaction: recorded.transaction,
    response: recorded.response ?? {},
  };
}

function envelopeOf(spec: OperationSpec) {
  return {
    merchant: spec.merchant,
    apiVersion: 100,
    requestId: `req-${randomBytes(4).toString('hex')}`,
    authMethod: 'PASSWORD' as const,
    fencingToken: spec.fencingToken ?? '1000',
  };
}

/** The text of every statement sent to Postgres while `work` runs (sentStatements). */
export async function statementsOf(work: () => Promise<unknown>, except?: unknown): Promise<string[]> {
  return (await sentStatements(work, except)).map((statement) => statement.text);
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run integration tests with \`jest --selectProjects int\`.`);
  }
  return value;
}

/**
 * Makes the first COMPLETE write of the ledger fail as a dropped connection would, once; the
 * writes after it go through. `dropped()` tells how many were dropped; `restore()` ends it.
 */
export function dropFirstCompletionWrite(app: LedgerTestApp): { dropped: () => number; restore: () => void } {
  const records = app.running.app.get(RecordOperation);
  const write = records.execute.bind(records);
  let dropped = 0;
  const spy = jest.spyOn(records, 'execute').mockImplementation(async (message, step, seen, deadline) => {
    if (step === 'COMPLETE' && dropped === 0) {
      dropped += 1;
      throw new Error('Connection terminated unexpectedly');
    }
    return write(message, step, seen, deadline);
  });
  return { dropped: () => dropped, restore: () => spy.mockRestore() };
}

/**
 * Holds every reservation until `copies` of them are waiting, then lets them all go: copies of one
 * request sent at once all pass begin before any reserves, so all but one find the reservation the
 * first made (RunReservedOperation's `replayed`), as copies racing without the lock may.
 */
export function reserveTogether(app: LedgerTestApp, copies: number): { restore: () => void } {
  const records = app.running.app.get(RecordOperation);
  const write = records.execute.bind(records);
  let waiting = 0;
  let all: () => void = () => undefined;
  const together = new Promise<void>((resolve) => (all = resolve));
  const spy = jest.spyOn(records, 'execute').mockImplementation(async (message, step, seen, deadline) => {
    if (step === 'RESERVE') {
      waiting += 1;
      if (waiting === copies) all();
      await together;
    }
    return write(message, step, seen, deadline);
  });
  return { restore: () => spy.mockRestore() };
}

/**
 * From an operation's first record of `step` on (a REFUND's reservation, a RECORD of a refund
 * awaiting approval), holds every connection of the ledger's pool, as an overload's backlog holds
 * them: the record waits for its connection in the pool's queue, and gets one only once
 * `release` says so (asked while it waits: `waiting` is how many do). `heldAt()`: when the pool
 * was taken (undefined: no such record was made), after the operation's begin and its own checks.
 */
export function holdPoolAtRecord(
  app: LedgerTestApp,
  step: 'RESERVE' | 'RECORD',
  release: (pool: { waiting: number }) => boolean,
): { heldAt: () => number | undefined; restore: () => void } {
  const records = app.running.app.get(RecordOperation);
  const write = records.execute.bind(records);
  const pool = (app.dataSource.driver as unknown as { master: Pool }).master;
  let heldAt: number | undefined;
  const spy = jest.spyOn(records, 'execute').mockImplementation(async (message, recordStep, seen, deadline) => {
    if (recordStep === step && heldAt === undefined) {
      const clients: PoolClient[] = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
      heldAt = Date.now();
      void waitFor(async () => release({ waiting: pool.waitingCount }), { timeoutMs: 30_000, what: 'a record waiting for its connection' })
        .catch(() => undefined)
        .then(() => clients.forEach((client) => client.release()));
    }
    return write(message, recordStep, seen, deadline);
  });
  return { heldAt: () => heldAt, restore: () => spy.mockRestore() };
}
