import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { DataSource } from 'typeorm';
import {
  BROWSER_PAYMENT_SCHEMA,
  BrowserPaymentRepository,
  BrowserPaymentRow,
  SimulatedPaymentRow,
  SimulatedProviderRepository,
} from '@gateway/browser-payment/data-access';
import {
  BrowserPaymentLedger,
  isSimulated,
  ProviderAdapter,
  ProviderAdapters,
  SimulatedProviderAdapter,
} from '@gateway/browser-payment/domain';
import {
  GatewayError,
  JsonObject,
  SettleExpiredPaymentMessage,
  SettleExpiredPaymentReply,
  SUBJECTS,
} from '@gateway/contracts';
import { Lease, LOCK_SERVICE, LockService } from '@gateway/locking';
import { dataSourceToken } from '@gateway/platform';
import { seededRandom } from '@gateway/testing';
import { GatewayResponse, startBrowserPaymentGateway, TestGateway, TestGatewayMerchant, twoBooksOrder } from './testing/test-gateway';

/**
 * A randomized race test of browser payments, looking for money bugs. Each round initiates one
 * browser payment on a new order (provider_a, _b or _c; PAY or AUTHORIZE; confirmed at the
 * provider or by the merchant), takes the journey some way (nowhere, to the provider's page,
 * the payer's decision there, back to the merchant), then launches a random set of steps on
 * the order at once, with no order lock: the payer's decision at the simulator, the out and in
 * URLs (the in URL possibly opened several times at once), the merchant's CONFIRM (same or
 * another amount or body, possibly twice at once), the sweep's settlement of the payment (its
 * token made expired first), linked REFUNDs, a second INITIATE under another transaction id and
 * the first INITIATE repeated.
 *
 * "No lock": the edge's LOCK_SERVICE always grants, each grant with a newer fencing token (as
 * the lock does when a holder's lease lapsed and the key went to the next caller). That is the
 * seam the edge itself goes through for the merchant's operations, the payer's steps and the
 * sweep, so everything still travels the real path (HTTP, the edge, the bus, the ledger's
 * fencing check) and only the serialisation is gone. The settlement is sent on the sweep's own
 * subject (browser-payment.expired.settle.v1) with a token from the same fence sequence: the
 * sweeper's loop would also settle other test files' expired payments in the shared database.
 * The simulators answer at once, so the provider adapters and browser-payment's ledger records
 * are given a random latency per call (per round at most a few ms), and every step starts
 * after a random delay.
 *
 * After the round's steps settled, and again after a recovery (every pending payment's token
 * expired and settled as the sweep would, a returned CONFIRM_AT_MERCHANT payment confirmed):
 *   - the ledger's transaction and browser-payment's row of each payment agree (result, code,
 *     amount, interaction status); a row without a ledger transaction is an initiate whose
 *     record was refused, never opened, holding nothing;
 *   - the provider simulator's books agree: money held (AUTHORIZED, CAPTURED) only for a
 *     payment the ledger has as SUCCESS, for its amount; a payment the ledger has as SUCCESS is
 *     held at the provider (never voided); what the payer decided there is what was recorded;
 *   - the order's totals are what the provider holds: captured, authorised, refunded; every
 *     refund the ledger has as SUCCESS was made at the provider and the other way round;
 *   - every merchant answer is what was stored (SUCCESS, FAILURE as stored, a LOCK_FAILURE or a
 *     400 created nothing), a repeated INITIATE replays the first answer, no 5xx to anyone but
 *     the payer's retry page (503) when the ledger refused a stale fencing token;
 *   - after the recovery nothing is PENDING, no journey is left that the ledger has no
 *     transaction for (the sweep discards those), and an order with one payment has the status it
 *     says.
 *
 * In a third of the rounds, half of browser-payment's step records lose their commit after the
 * ledger recorded them (the database lost between the two commits): the step answers a 5xx and
 * the payment row is left behind the ledger. Those rounds allow the 5xx answers and a row behind
 * the ledger after the race, and check the money against the ledger's records; after the
 * recovery (no faults) every row must have caught up.
 * A failing round prints its plan, every answer, the stored state and the provider calls.
 * `BROWSER_PAYMENT_RACES_SEED` replays a run's rounds (the same steps; the interleaving may
 * differ), `BROWSER_PAYMENT_RACES_RUNS` changes their number.
 */
const RUNS = Number(process.env.BROWSER_PAYMENT_RACES_RUNS ?? 150);
const SEED = Number(process.env.BROWSER_PAYMENT_RACES_SEED ?? randomInt(0, 2 ** 31 - 1));

let gateway: TestGateway;
let merchant: TestGatewayMerchant;
let payments: BrowserPaymentRepository;
let simulator: SimulatedProviderRepository;
let database: DataSource;

// ---------------------------------------------------------------------------------------------
// The lock that always grants, the latency, and the provider calls of the round.
// ---------------------------------------------------------------------------------------------

let lastFence = 0n;

/** A newer fencing token than any before: the lock's rule, max(last + 1, now in microseconds). */
function nextFence(): string {
  const now = BigInt(Date.now()) * 1000n;
  lastFence = now > lastFence ? now : lastFence + 1n;
  return lastFence.toString();
}

interface ProviderCall {
  call: 'payerReturned' | 'execute' | 'reverse' | 'refund';
  reference: string;
  amount?: string;
  answer?: string;
}

/** What the round under way is: its latency bounds and random source, and the provider calls made. */
interface Running {
  providerMaxMs: number;
  ledgerMaxMs: number;
  /** The share of browser-payment's step records whose commit is lost after the ledger recorded them. */
  lostCommitRate: number;
  lostCommits: number;
  /** No faults while the round recovers. */
  recovering: boolean;
  random: () => number;
  calls: ProviderCall[];
}

let running: Running | null = null;

function latency(max: (r: Running) => number): Promise<void> {
  const round = running;
  if (!round || max(round) === 0) {
    return Promise.resolve();
  }
  return sleep(Math.floor(round.random() * (max(round) + 1)));
}

const providerLatency = () => latency((r) => r.providerMaxMs);
const ledgerLatency = () => latency((r) => r.ledgerMaxMs);

/** The simulator, slower, and its calls logged for the round's report. */
function slowed(inner: SimulatedProviderAdapter): SimulatedProviderAdapter {
  const log = (entry: ProviderCall) => running?.calls.push(entry);
  return {
    get provider() {
      return inner.provider;
    },
    get acquirerId() {
      return inner.acquirerId;
    },
    createPayment: (spec) => inner.createPayment(spec),
    highestConfirmable: (approved) => inner.highestConfirmable(approved),
    payerPage: (context) => inner.payerPage(context),
    decide: (reference, decision) => inner.decide(reference, decision),
    async payerReturned(reference) {
      await providerLatency();
      const back = await inner.payerReturned(reference);
      log({ call: 'payerReturned', reference, answer: back.outcome });
      return back;
    },
    async execute(reference, operation, amount) {
      await providerLatency();
      const result = await inner.execute(reference, operation, amount);
      log({
        call: 'execute',
        reference,
        amount: amount.toFixed(),
        answer: `${result.providerCode}${result.executedFor ? ` for ${result.executedFor.toFixed()}` : ''}`,
      });
      // The answer travels back as slowly: the execution is made, the gateway does not know yet.
      await providerLatency();
      return result;
    },
    async reverse(reference) {
      await providerLatency();
      await inner.reverse(reference);
      log({ call: 'reverse', reference });
    },
    async refund(reference, refundId, amount) {
      await providerLatency();
      const result = await inner.refund(reference, refundId, amount);
      log({ call: 'refund', reference, amount: amount.toFixed(), answer: result.providerCode });
      return result;
    },
    // Passed through: the rounds run far within the default confirm window (72 h), so the sweep never releases an approval here.
    releaseApproval: (reference) => inner.releaseApproval(reference),
    // The rounds neither capture nor void: the merchant's operations here are confirms and refunds.
    capture: (reference, captureId, amount) => inner.capture(reference, captureId, amount),
    voidAuthorization: (reference) => inner.voidAuthorization(reference),
  };
}

beforeAll(async () => {
  gateway = await startBrowserPaymentGateway({
    // The sweeper's timer off: the rounds settle their own payments (see above).
    BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '0',
    DATABASE_POOL_SIZE: '8',
  });
  merchant = await gateway.newMerchant();
  const app = gateway.running.app;
  payments = app.get(BrowserPaymentRepository, { strict: false });
  simulator = app.get(SimulatedProviderRepository, { strict: false });
  database = app.get<string, DataSource>(dataSourceToken(BROWSER_PAYMENT_SCHEMA.schema) as string, { strict: false });

  const locks = app.get<LockService>(LOCK_SERVICE);
  jest.spyOn(locks, 'acquire').mockImplementation(
    async (key): Promise<Lease> => ({ key, fencingToken: nextFence(), release: async () => true, extend: async () => true }),
  );

  const adapters = app.get(ProviderAdapters, { strict: false });
  const wrapped = new Map<ProviderAdapter, ProviderAdapter>();
  const wrap = (adapter: ProviderAdapter): ProviderAdapter => {
    if (!isSimulated(adapter)) {
      return adapter;
    }
    if (!wrapped.has(adapter)) {
      wrapped.set(adapter, slowed(adapter));
    }
    return wrapped.get(adapter)!;
  };
  const forPayment = adapters.forPayment.bind(adapters);
  const forMerchant = adapters.forMerchant.bind(adapters);
  jest.spyOn(adapters, 'forPayment').mockImplementation((payment) => wrap(forPayment(payment)));
  jest.spyOn(adapters, 'forMerchant').mockImplementation((m, provider) => wrap(forMerchant(m, provider)));

  const ledger = app.get(BrowserPaymentLedger, { strict: false });
  const record = ledger.record.bind(ledger);
  jest.spyOn(ledger, 'record').mockImplementation(async (step) => {
    await ledgerLatency();
    const body = await record(step);
    // Recorded, and the payment row's transaction not committed yet.
    await ledgerLatency();
    const round = running;
    if (round && !round.recovering && step.mode === 'UPDATE' && round.random() < round.lostCommitRate) {
      // The database lost between the ledger's commit and the step's: the row's change rolls back.
      round.lostCommits += 1;
      throw new Error(`injected: the commit of ${step.apiOperation} lost after the ledger recorded it`);
    }
    return body;
  });
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

// ---------------------------------------------------------------------------------------------
// The rounds' plans.
// ---------------------------------------------------------------------------------------------

type Provider = 'provider_a' | 'provider_b' | 'provider_c';
type Operation = 'PAY' | 'AUTHORIZE';
type Confirmation = 'CONFIRM_AT_PROVIDER' | 'CONFIRM_AT_MERCHANT';
type Decision = 'approve' | 'cancel';

interface Terms {
  provider: Provider;
  operation: Operation;
  confirmation: Confirmation;
}

/** How far the journey went, in order, before the race. */
type Stage = 'initiated' | 'opened' | 'decided' | 'returned';

type ConfirmVariant = 'same' | 'amount' | 'reference';

type Step =
  | { kind: 'open' }
  | { kind: 'decide'; decision: Decision }
  | { kind: 'return'; copies: number }
  | { kind: 'confirm'; variant: ConfirmVariant; copies: number }
  | { kind: 'settle' }
  | { kind: 'refund'; amount: string; targeted: boolean }
  | { kind: 'initiate2' }
  | { kind: 'initiateAgain' };

interface PlannedStep {
  step: Step;
  delayMs: number;
}

interface RoundPlan {
  terms: Terms;
  stage: Stage;
  /** The payer's decision at the provider when the stage includes one. */
  decision: Decision;
  steps: PlannedStep[];
  providerMaxMs: number;
  ledgerMaxMs: number;
  lostCommitRate: number;
  latencySeed: number;
}

const weighted = <T>(...choices: [T, number][]): fc.Arbitrary<T> =>
  fc.oneof(...choices.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));

const termsArb: fc.Arbitrary<Terms> = fc.oneof(
  {
    arbitrary: fc.record({
      provider: fc.constant<Provider>('provider_a'),
      operation: fc.constantFrom<Operation>('PAY', 'AUTHORIZE'),
      confirmation: fc.constantFrom<Confirmation>('CONFIRM_AT_PROVIDER', 'CONFIRM_AT_MERCHANT'),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      provider: fc.constantFrom<Provider>('provider_b', 'provider_c'),
      operation: fc.constant<Operation>('PAY'),
      confirmation: fc.constant<Confirmation>('CONFIRM_AT_PROVIDER'),
    }),
    weight: 1,
  },
);

function stepArb(terms: Terms): fc.Arbitrary<Step> {
  const atMerchant = terms.confirmation === 'CONFIRM_AT_MERCHANT';
  return fc.oneof(
    { arbitrary: fc.constant<Step>({ kind: 'open' }), weight: 1 },
    { arbitrary: weighted<Decision>(['approve', 3], ['cancel', 1]).map((decision): Step => ({ kind: 'decide', decision })), weight: 2 },
    { arbitrary: weighted([1, 2], [2, 2], [3, 1]).map((copies): Step => ({ kind: 'return', copies })), weight: 3 },
    {
      arbitrary: fc
        .record({ variant: weighted<ConfirmVariant>(['same', 3], ['amount', 2], ['reference', 2]), copies: weighted([1, 2], [2, 1]) })
        .map((c): Step => ({ kind: 'confirm', ...c })),
      weight: atMerchant ? 5 : 1,
    },
    { arbitrary: fc.constant<Step>({ kind: 'settle' }), weight: 2 },
    {
      arbitrary: fc
        .record({ amount: weighted(['5.00', 2], ['10.00', 2], ['27.00', 1], ['30.00', 2], ['30.01', 1]), targeted: fc.boolean() })
        .map((r): Step => ({ kind: 'refund', ...r })),
      weight: terms.operation === 'PAY' ? 3 : 1,
    },
    { arbitrary: fc.constant<Step>({ kind: 'initiate2' }), weight: 2 },
    { arbitrary: fc.constant<Step>({ kind: 'initiateAgain' }), weight: 1 },
  );
}

const roundArb: fc.Arbitrary<RoundPlan> = termsArb.chain((terms) =>
  fc.record({
    terms: fc.constant(terms),
    stage: weighted<Stage>(['initiated', 1], ['opened', 3], ['decided', 4], ['returned', 2]),
    decision: weighted<Decision>(['approve', 4], ['cancel', 1]),
    steps: fc.array(fc.record({ step: stepArb(terms), delayMs: fc.integer({ min: 0, max: 25 }) }), { minLength: 2, maxLength: 7 }),
    providerMaxMs: fc.integer({ min: 0, max: 8 }),
    ledgerMaxMs: fc.integer({ min: 0, max: 6 }),
    lostCommitRate: weighted([0, 2], [0.5, 1]),
    latencySeed: fc.integer(),
  }),
);

// ---------------------------------------------------------------------------------------------
// The gateway, as the merchant, the payer and the sweep reach it.
// ---------------------------------------------------------------------------------------------

const RETURN_URL = 'https://shop.example/checkout/return?cart=7';
const TRANSACTION = 'bp-1';
const SECOND = 'bp-2';

function initiateBody(terms: Terms): JsonObject {
  const sourceOfFunds: JsonObject =
    terms.provider === 'provider_b'
      ? { type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '37040044' } } }
      : { type: terms.provider === 'provider_a' ? 'PROVIDER_A' : 'PROVIDER_C' };
  const browserPayment: JsonObject =
    terms.provider === 'provider_a'
      ? { returnUrl: RETURN_URL, provider_a: { operation: terms.operation, paymentConfirmation: terms.confirmation } }
      : { returnUrl: RETURN_URL };
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment,
    order: twoBooksOrder(),
    sourceOfFunds,
  };
}

const CONFIRM_CHANGES: Record<ConfirmVariant, JsonObject> = {
  same: {},
  amount: { order: { amount: '27.00', itemAmount: '22.00', item: [{ name: 'Book one', quantity: '2', unitPrice: '11.00' }] } },
  reference: { transaction: { reference: 'confirm-ref' } },
};

const put = (orderId: string, transactionId: string, body: JsonObject) =>
  gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/${transactionId}`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const at = (body: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as JsonObject | undefined)?.[key], body);

/** One answer, as the report shows it and the checks read it. */
interface Answer {
  label: string;
  /** The payment it is about (confirms and settlements). */
  transactionId?: string;
  status?: number;
  result?: string;
  gatewayCode?: string;
  amount?: number;
  location?: string;
  /** The reply of a settlement, or the error it got. */
  outcome?: string;
  error?: string;
  text?: string;
}

function httpAnswer(label: string, response: GatewayResponse): Answer {
  const answer: Answer = { label, status: response.status };
  if (typeof response.body.result === 'string') answer.result = response.body.result;
  const code = at(response.body, 'response.gatewayCode');
  if (typeof code === 'string') answer.gatewayCode = code;
  const amount = at(response.body, 'transaction.amount');
  if (typeof amount === 'number') answer.amount = amount;
  const location = response.headers.get('location');
  if (location) answer.location = location;
  const explanation = at(response.body, 'error.explanation');
  if (typeof explanation === 'string') answer.error = explanation;
  if (!response.headers.get('content-type')?.startsWith('application/json')) {
    // A payer's page: its heading says what it is.
    answer.text = /<h1>([^<]*)<\/h1>/.exec(response.text)?.[1] ?? response.text.slice(0, 80);
  }
  return answer;
}

const withTransaction = (answer: Answer, transactionId: string): Answer => ({ ...answer, transactionId });

interface RoundState {
  plan: RoundPlan;
  orderId: string;
  token: string;
  initiatedText: string;
  answers: Answer[];
  refundIds: string[];
}

const outUrl = (round: RoundState) => `/bpui/${round.plan.terms.provider}/out/${round.token}`;
const inUrl = (round: RoundState) => `/bpui/${round.plan.terms.provider}/in/${round.token}`;

async function settle(round: RoundState, transactionId: string, label: string): Promise<Answer> {
  const payment = await payments.findByTransaction(merchant.id, round.orderId, transactionId);
  if (!payment) {
    return { label, transactionId, outcome: 'no payment row' };
  }
  // The token runs out now (the sweep finds it due), for the payer's steps after this too.
  await database.query(`UPDATE browser_payment.payments SET token_expires_at = now() - interval '1 second' WHERE id = $1`, [payment.id]);
  const message: SettleExpiredPaymentMessage = {
    envelope: { merchant: merchant.context, apiVersion: 100, requestId: randomUUID(), authMethod: 'GATEWAY', fencingToken: nextFence() },
    paymentId: payment.id,
  };
  try {
    const reply = await gateway.bus.request<SettleExpiredPaymentReply>(SUBJECTS.browserPayment.expiredSettle, message);
    return { label, transactionId, outcome: reply.outcome };
  } catch (err) {
    return { label, transactionId, error: err instanceof GatewayError ? `${err.code}: ${err.message}` : String(err) };
  }
}

async function runStep(round: RoundState, planned: PlannedStep, index: number): Promise<Answer[]> {
  await sleep(planned.delayMs);
  const { step } = planned;
  const label = `${index}:${step.kind}`;
  switch (step.kind) {
    case 'open':
      return [httpAnswer(label, await gateway.fetch(outUrl(round)))];
    case 'decide':
      return [httpAnswer(`${label}(${step.decision})`, await gateway.fetch(`${outUrl(round)}/${step.decision}`, { method: 'POST' }))];
    case 'return':
      return Promise.all(
        Array.from({ length: step.copies }, async (_, copy) => httpAnswer(`${label}#${copy}`, await gateway.fetch(inUrl(round)))),
      );
    case 'confirm':
      return Promise.all(
        Array.from({ length: step.copies }, async (_, copy) =>
          withTransaction(
            httpAnswer(
              `${label}(${step.variant})#${copy}`,
              await put(round.orderId, TRANSACTION, { apiOperation: 'CONFIRM_BROWSER_PAYMENT', ...CONFIRM_CHANGES[step.variant] }),
            ),
            TRANSACTION,
          ),
        ),
      );
    case 'settle':
      return [await settle(round, TRANSACTION, label)];
    case 'refund': {
      const refundId = `r-${index}`;
      round.refundIds.push(refundId);
      const body = {
        apiOperation: 'REFUND',
        transaction: { amount: step.amount, currency: 'EUR', ...(step.targeted ? { targetTransactionId: TRANSACTION } : {}) },
      };
      return [httpAnswer(`${label}(${refundId} ${step.amount}${step.targeted ? ` of ${TRANSACTION}` : ''})`, await put(round.orderId, refundId, body))];
    }
    case 'initiate2':
      return [httpAnswer(label, await put(round.orderId, SECOND, initiateBody(round.plan.terms)))];
    case 'initiateAgain': {
      const response = await put(round.orderId, TRANSACTION, initiateBody(round.plan.terms));
      const answer = httpAnswer(label, response);
      answer.outcome = response.text === round.initiatedText ? 'identical' : 'different';
      return [answer];
    }
  }
}

/** The journey up to the round's stage, one step after the other. */
async function prelude(round: RoundState): Promise<void> {
  const { stage, decision } = round.plan;
  if (stage === 'initiated') return;
  round.answers.push(httpAnswer('prelude:open', await gateway.fetch(outUrl(round))));
  if (stage === 'opened') return;
  round.answers.push(httpAnswer(`prelude:decide(${decision})`, await gateway.fetch(`${outUrl(round)}/${decision}`, { method: 'POST' })));
  if (stage === 'decided') return;
  round.answers.push(httpAnswer('prelude:return', await gateway.fetch(inUrl(round))));
}

/** Afterwards, as the gateway and a merchant would end it: every pending payment settled, a waiting confirm made. */
async function recover(round: RoundState): Promise<void> {
  const recorded = (await readStored(round)).transactions;
  for (const transactionId of [TRANSACTION, SECOND]) {
    const payment = await payments.findByTransaction(merchant.id, round.orderId, transactionId);
    if (!payment || payment.result !== 'PENDING') continue;
    // A row the ledger has no transaction for (an initiate answered LOCK_FAILURE): the sweep
    // discards it (browser-payment-execution-race.int-spec.ts).
    if (!recorded.has(transactionId)) {
      round.answers.push(await settle(round, transactionId, `recover:settle ${transactionId}`));
      continue;
    }
    if (!(payment.interactionStatus === 'RETURNED_TO_MERCHANT' && payment.confirmation === 'CONFIRM_AT_MERCHANT')) {
      round.answers.push(await settle(round, transactionId, `recover:settle ${transactionId}`));
    }
    const after = await payments.findByTransaction(merchant.id, round.orderId, transactionId);
    if (after?.result === 'PENDING' && after.interactionStatus === 'RETURNED_TO_MERCHANT' && after.confirmation === 'CONFIRM_AT_MERCHANT') {
      const confirmed = await put(round.orderId, transactionId, { apiOperation: 'CONFIRM_BROWSER_PAYMENT' });
      round.answers.push(withTransaction(httpAnswer(`recover:confirm ${transactionId}`, confirmed), transactionId));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// What is stored, and the checks.
// ---------------------------------------------------------------------------------------------

interface Stored {
  order: JsonObject;
  transactions: Map<string, JsonObject>;
  rows: Map<string, BrowserPaymentRow>;
  simulated: Map<string, SimulatedPaymentRow | null>;
  /** refund id -> the provider refund recorded for it (against any payment of the order). */
  providerRefunds: Map<string, { result: string; amount: string; paymentTransaction: string }>;
}

async function readStored(round: RoundState): Promise<Stored> {
  const response = await gateway.fetch(`${merchant.base()}/order/${round.orderId}`, { headers: { authorization: merchant.authorization } });
  if (response.status !== 200) {
    throw new Error(`order retrieval answered ${response.status}: ${response.text}`);
  }
  const order = response.body;
  const transactions = new Map<string, JsonObject>();
  for (const transaction of (order.transaction as JsonObject[] | undefined) ?? []) {
    transactions.set(String(at(transaction, 'transaction.id')), transaction);
  }
  const rows = new Map<string, BrowserPaymentRow>();
  const simulated = new Map<string, SimulatedPaymentRow | null>();
  const providerRefunds: Stored['providerRefunds'] = new Map();
  for (const transactionId of [TRANSACTION, SECOND]) {
    const row = await payments.findByTransaction(merchant.id, round.orderId, transactionId);
    if (!row) continue;
    rows.set(transactionId, row);
    simulated.set(transactionId, await simulator.find(row.providerReference));
    for (const refundId of round.refundIds) {
      const refund = await payments.findRefund(row.id, refundId);
      if (refund) {
        providerRefunds.set(refundId, { result: refund.result, amount: refund.amount, paymentTransaction: transactionId });
      }
    }
  }
  return { order, transactions, rows, simulated, providerRefunds };
}

const dec = (value: unknown) => new Decimal(value === undefined || value === null ? 0 : String(value));
const EXECUTED: Record<Operation, string> = { PAY: 'CAPTURED', AUTHORIZE: 'AUTHORIZED' };
const HOLDS_MONEY = ['CAPTURED', 'AUTHORIZED'];

function check(round: RoundState, stored: Stored, phase: 'after the race' | 'after the recovery'): string[] {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`${phase}: ${text}`);
  const { order, transactions, rows, simulated, providerRefunds } = stored;
  // A lost commit leaves a 5xx and a payment row behind the ledger until a later step catches it up.
  const faults = (running?.lostCommits ?? 0) > 0;

  // Each payment: the ledger, browser-payment and the provider agree.
  let authorized = new Decimal(0);
  let captured = new Decimal(0);
  let heldAuthorized = new Decimal(0);
  let heldCaptured = new Decimal(0);
  let heldRefunded = new Decimal(0);
  for (const [transactionId, row] of rows) {
    const sim = simulated.get(transactionId) ?? null;
    const ledger = transactions.get(transactionId);
    const held = sim !== null && HOLDS_MONEY.includes(sim.status);
    if (sim) {
      heldCaptured = heldCaptured.plus(dec(sim.capturedAmount));
      heldRefunded = heldRefunded.plus(dec(sim.refundedAmount));
      if (sim.status === 'AUTHORIZED') heldAuthorized = heldAuthorized.plus(dec(sim.amount));
      if (sim.status === 'CAPTURED') heldAuthorized = heldAuthorized.plus(dec(sim.amount));
    } else {
      problem(`${transactionId}: the provider has no payment ${row.providerReference}`);
    }
    if (!ledger) {
      // An initiate whose record the ledger refused: nobody got its redirect URL.
      if (row.interactionStatus !== 'INITIATED' || held) {
        problem(`${transactionId}: browser-payment has it ${row.interactionStatus}/${row.result} (provider ${sim?.status}), the ledger has no such transaction`);
      }
      continue;
    }
    const ledgerResult = ledger.result;
    const ledgerCode = at(ledger, 'response.gatewayCode');
    const ledgerAmount = dec(at(ledger, 'transaction.amount'));
    const ledgerInteraction = at(ledger, 'browserPayment.interaction.status');
    const agree =
      ledgerResult === row.result && ledgerCode === row.gatewayCode && ledgerAmount.equals(dec(row.amount)) && ledgerInteraction === row.interactionStatus;
    if (!agree && !(faults && phase === 'after the race')) {
      problem(
        `${transactionId}: the ledger has ${ledgerResult}/${String(ledgerCode)} ${ledgerAmount.toFixed(2)} ${String(ledgerInteraction)}, ` +
          `browser-payment ${row.result}/${row.gatewayCode} ${row.amount} ${row.interactionStatus}`,
      );
    }
    // The money: the ledger's record against the provider's books.
    if (ledgerResult === 'SUCCESS') {
      authorized = authorized.plus(ledgerAmount);
      if (row.operation === 'PAY') captured = captured.plus(ledgerAmount);
      if (!sim || sim.status !== EXECUTED[row.operation] || !dec(sim.amount).equals(ledgerAmount)) {
        problem(`${transactionId}: recorded SUCCESS for ${ledgerAmount.toFixed(2)}, the provider has it ${sim?.status} for ${sim?.amount} (captured ${sim?.capturedAmount})`);
      }
    } else if (held) {
      problem(`${transactionId}: the provider holds ${sim.amount} (${sim.status}), the payment is recorded ${String(ledgerResult)}/${String(ledgerCode)}`);
    }
    if (row.payerOutcome === 'CANCELLED' && sim && ['APPROVED', ...HOLDS_MONEY].includes(sim.status)) {
      problem(`${transactionId}: recorded as cancelled by the payer, the provider has it ${sim.status}`);
    }
    if (row.payerOutcome === 'CANCELLED' && (row.result !== 'FAILURE' || row.gatewayCode !== 'CANCELLED')) {
      problem(`${transactionId}: the payer cancelled, the payment is ${row.result}/${row.gatewayCode}`);
    }
    const confirmedByMerchant = round.answers.some(
      (a) =>
        a.transactionId === transactionId &&
        a.label.includes('confirm') &&
        ((a.status === 201 && a.gatewayCode !== 'LOCK_FAILURE') || (faults && a.status !== undefined && a.status >= 500)),
    );
    if (row.confirmation === 'CONFIRM_AT_MERCHANT' && row.interactionStatus === 'COMPLETED' && !confirmedByMerchant) {
      problem(`${transactionId}: CONFIRM_AT_MERCHANT payment COMPLETED ${row.result} without a confirm the merchant was answered`);
    }
    if (row.payerOutcome === 'APPROVED' && sim && ['CREATED', 'CANCELLED', 'ABANDONED'].includes(sim.status)) {
      problem(`${transactionId}: recorded as approved by the payer, the provider has it ${sim.status}`);
    }
  }

  // The order's totals are what the payments say and what the provider holds.
  let refunded = new Decimal(0);
  for (const [id, transaction] of transactions) {
    if (at(transaction, 'transaction.type') !== 'REFUND') continue;
    const amount = dec(at(transaction, 'transaction.amount'));
    const atProvider = providerRefunds.get(id);
    if (transaction.result === 'SUCCESS') {
      refunded = refunded.plus(amount);
      if (!atProvider || atProvider.result !== 'SUCCESS' || !dec(atProvider.amount).equals(amount)) {
        problem(`refund ${id}: recorded SUCCESS for ${amount.toFixed(2)}, the provider refunded ${JSON.stringify(atProvider ?? null)}`);
      }
    } else if (transaction.result !== 'FAILURE') {
      problem(`refund ${id}: left ${String(transaction.result)}`);
    } else if (atProvider?.result === 'SUCCESS') {
      problem(`refund ${id}: recorded FAILURE, the provider refunded ${atProvider.amount}`);
    }
  }
  for (const [id, atProvider] of providerRefunds) {
    if (atProvider.result === 'SUCCESS' && transactions.get(id)?.result !== 'SUCCESS') {
      problem(`refund ${id}: refunded at the provider (${atProvider.amount}), the ledger has ${String(transactions.get(id)?.result ?? 'nothing')}`);
    }
  }
  const totals = {
    authorized: dec(order.totalAuthorizedAmount),
    captured: dec(order.totalCapturedAmount),
    refunded: dec(order.totalRefundedAmount),
  };
  if (!totals.authorized.equals(authorized) || !totals.captured.equals(captured) || !totals.refunded.equals(refunded)) {
    problem(
      `order totals authorized ${totals.authorized.toFixed(2)} captured ${totals.captured.toFixed(2)} refunded ${totals.refunded.toFixed(2)}, ` +
        `its transactions say ${authorized.toFixed(2)} / ${captured.toFixed(2)} / ${refunded.toFixed(2)}`,
    );
  }
  if (!totals.captured.equals(heldCaptured) || !totals.refunded.equals(heldRefunded) || !totals.authorized.equals(heldAuthorized)) {
    problem(
      `order totals authorized ${totals.authorized.toFixed(2)} captured ${totals.captured.toFixed(2)} refunded ${totals.refunded.toFixed(2)}, ` +
        `the provider holds ${heldAuthorized.toFixed(2)} / ${heldCaptured.toFixed(2)} / ${heldRefunded.toFixed(2)}`,
    );
  }

  // Every answer is what was stored.
  const successfulConfirms = new Set<number>();
  for (const answer of round.answers) {
    const isPayer = answer.text !== undefined;
    if (answer.status !== undefined && answer.status >= 500 && !(isPayer && answer.status === 503) && !faults) {
      problem(`${answer.label} answered ${answer.status}: ${answer.error ?? answer.text ?? ''}`);
    }
    if (answer.error && answer.status === undefined && !answer.error.startsWith('ORDER_LOCK_LOST') && !faults) {
      problem(`${answer.label} failed: ${answer.error}`);
    }
    const kind = answer.label.split(':')[1]?.split(/[(# ]/)[0];
    if (kind === 'confirm' && answer.status === 201) {
      const stored = transactions.get(answer.transactionId ?? TRANSACTION);
      if (answer.result === 'SUCCESS') {
        if (answer.transactionId === TRANSACTION) successfulConfirms.add(answer.amount ?? -1);
        if (stored?.result !== 'SUCCESS' || !dec(at(stored, 'transaction.amount')).equals(dec(answer.amount))) {
          problem(`${answer.label} answered SUCCESS for ${answer.amount}, stored ${String(stored?.result)} for ${String(at(stored, 'transaction.amount'))}`);
        }
      } else if (answer.result === 'FAILURE' && answer.gatewayCode !== 'LOCK_FAILURE' && stored?.result !== 'FAILURE') {
        problem(`${answer.label} answered FAILURE/${answer.gatewayCode}, stored ${String(stored?.result)}`);
      }
    }
    if (kind === 'refund') {
      const id = /\((r-\d+)/.exec(answer.label)![1];
      const stored = transactions.get(id);
      if (answer.status === 201 && answer.gatewayCode !== 'LOCK_FAILURE') {
        if (stored?.result !== answer.result || !dec(at(stored, 'transaction.amount')).equals(dec(answer.amount))) {
          problem(`${answer.label} answered ${answer.result} ${answer.amount}, stored ${String(stored?.result)} ${String(at(stored, 'transaction.amount'))}`);
        }
      } else if (stored) {
        problem(`${answer.label} answered ${answer.status} ${answer.gatewayCode ?? answer.error ?? ''}, yet the ledger has ${id} ${String(stored.result)}`);
      }
    }
    if (kind === 'initiate2' && answer.status === 201 && answer.result === 'PENDING' && !transactions.has(SECOND)) {
      problem(`${answer.label} answered PENDING, the ledger has no ${SECOND}`);
    }
    if (kind === 'initiateAgain' && answer.gatewayCode !== 'LOCK_FAILURE' && answer.outcome !== 'identical') {
      problem(`${answer.label} answered ${answer.status} ${answer.result ?? answer.error ?? ''}, not the first answer again`);
    }
    if (kind === 'settle' && answer.outcome === 'TIMED_OUT') {
      const row = rows.get(answer.transactionId ?? TRANSACTION);
      if (row?.result !== 'FAILURE' || row.gatewayCode !== 'TIMED_OUT') {
        problem(`${answer.label} answered TIMED_OUT, the payment is ${row?.result}/${row?.gatewayCode}`);
      }
    }
  }
  if (successfulConfirms.size > 1) {
    problem(`confirms answered SUCCESS for different amounts: ${[...successfulConfirms].join(', ')}`);
  }

  if (phase === 'after the recovery') {
    for (const [transactionId, row] of rows) {
      if (row.result === 'PENDING' && transactions.has(transactionId)) {
        problem(`${transactionId}: still PENDING (${row.interactionStatus}, payer ${row.payerOutcome}) after the recovery`);
      }
      if (!transactions.has(transactionId)) {
        problem(`${transactionId}: a journey (${row.interactionStatus}) the ledger has no transaction for, still there after the recovery`);
      }
    }
    const paymentTransactions = [...transactions.values()].filter((t) => at(t, 'transaction.type') !== 'REFUND');
    if (paymentTransactions.length === 1 && refunded.isZero()) {
      const only = paymentTransactions[0];
      const expected =
        only.result === 'SUCCESS' ? (at(only, 'transaction.type') === 'PAYMENT' ? 'CAPTURED' : 'AUTHORIZED') : only.result === 'FAILURE' ? 'FAILED' : undefined;
      if (expected && order.status !== expected) {
        problem(`order ${String(order.status)}, its one payment is ${String(only.result)}: expected ${expected}`);
      }
    }
  }
  return problems;
}

function report(round: RoundState, stored: Stored, problems: string[]): string {
  const transactions = [...stored.transactions.values()].map((t) => ({
    id: at(t, 'transaction.id'),
    type: at(t, 'transaction.type'),
    amount: at(t, 'transaction.amount'),
    result: t.result,
    gatewayCode: at(t, 'response.gatewayCode'),
    interaction: at(t, 'browserPayment.interaction.status'),
  }));
  const rows = [...stored.rows.entries()].map(([id, r]) => ({
    id,
    interaction: r.interactionStatus,
    result: r.result,
    gatewayCode: r.gatewayCode,
    payer: r.payerOutcome,
    amount: r.amount,
    reference: r.providerReference,
  }));
  const simulated = [...stored.simulated.entries()].map(([id, s]) => ({
    id,
    status: s?.status,
    amount: s?.amount,
    captured: s?.capturedAmount,
    refunded: s?.refundedAmount,
  }));
  return [
    `browser payment race on order ${round.orderId} of merchant ${merchant.id}; run seed ${SEED} (BROWSER_PAYMENT_RACES_SEED=${SEED} replays the run)`,
    ...problems.map((p) => `  PROBLEM ${p}`),
    `plan: ${JSON.stringify(round.plan)}; commits lost: ${running?.lostCommits ?? 0}`,
    'answers:',
    ...round.answers.map((a) => `  ${JSON.stringify(a)}`),
    `order: ${JSON.stringify({ status: stored.order.status, authorized: stored.order.totalAuthorizedAmount, captured: stored.order.totalCapturedAmount, refunded: stored.order.totalRefundedAmount })}`,
    'ledger transactions:',
    ...transactions.map((t) => `  ${JSON.stringify(t)}`),
    'browser-payment rows:',
    ...rows.map((r) => `  ${JSON.stringify(r)}`),
    'provider (simulator) books:',
    ...simulated.map((s) => `  ${JSON.stringify(s)}`),
    `provider refunds: ${JSON.stringify([...stored.providerRefunds.entries()])}`,
    'provider calls:',
    ...(running?.calls ?? []).map((c) => `  ${JSON.stringify(c)}`),
  ].join('\n');
}

async function runRound(plan: RoundPlan): Promise<void> {
  running = {
    providerMaxMs: plan.providerMaxMs,
    ledgerMaxMs: plan.ledgerMaxMs,
    lostCommitRate: plan.lostCommitRate,
    lostCommits: 0,
    recovering: false,
    random: seededRandom(plan.latencySeed),
    calls: [],
  };
  try {
    const orderId = `bprace-${randomUUID().slice(0, 13)}`;
    const initiated = await put(orderId, TRANSACTION, initiateBody(plan.terms));
    if (initiated.status !== 201 || initiated.body.result !== 'PENDING') {
      throw new Error(`the round's initiate answered ${initiated.status}: ${initiated.text}`);
    }
    const redirectUrl = String(at(initiated.body, 'browserPayment.redirectUrl'));
    const round: RoundState = {
      plan,
      orderId,
      token: redirectUrl.split('/').pop()!,
      initiatedText: initiated.text,
      answers: [],
      refundIds: [],
    };
    await prelude(round);
    const raced = await Promise.all(plan.steps.map((planned, index) => runStep(round, planned, index)));
    round.answers.push(...raced.flat());

    const afterRace = await readStored(round);
    const raceProblems = check(round, afterRace, 'after the race');
    if (raceProblems.length > 0) {
      throw new Error(report(round, afterRace, raceProblems));
    }
    running.recovering = true;
    await recover(round);
    const afterRecovery = await readStored(round);
    const problems = check(round, afterRecovery, 'after the recovery');
    if (problems.length > 0) {
      throw new Error(report(round, afterRecovery, problems));
    }
  } finally {
    running = null;
  }
}

describe('browser payments under racing steps without the order lock', () => {
  it(`keep the ledger, browser-payment and the provider agreeing about the money (${RUNS} rounds, seed ${SEED}: BROWSER_PAYMENT_RACES_SEED=${SEED} replays them)`, async () => {
    await fc.assert(fc.asyncProperty(roundArb, runRound), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  }, 120_000);
});
