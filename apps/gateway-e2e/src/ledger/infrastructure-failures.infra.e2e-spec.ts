import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { auditLedger, AuditedTransaction, freePort, OrderAudit, TEST_CARD, waitFor } from '@gateway/testing';
import { assertConformance, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { counterTotal } from '../support/metrics';
import { httpOk, StartedProcess, startApp } from '../support/processes';
import { throwawayNats, throwawayRedis, ThrowawayServer } from '../support/throwaway-servers';

jest.setTimeout(180_000);

/** Orders begun per second, each a PAY then a REFUND or an AUTHORIZE then a CAPTURE: twice as many money operations. */
const FLOWS_PER_SECOND = 20;
const LOAD_MS = 20_000;
/** How long a merchant keeps retrying one request (same ids, same body) before it gives up on it. */
const RETRY_LIMIT_MS = 30_000;
/** How long the gateway is given to settle what the failures left open, once the load is over. */
const SETTLE_LIMIT_MS = 30_000;
const ACQUIRER_LATENCY_MS = 100;
/**
 * The ledger's ABANDONED_RESERVATION_AFTER_MS: the shortest it accepts with the harness's
 * REFUND_CALL_TIMEOUT_MS (5 s + 3 s reversal + 25 s completion retries + 5 s connection + 10 s
 * margin). A reservation the SIGKILL abandoned is inquired about once a read meets it this long
 * after the kill, well inside the settle window that follows the merchant's 30 s of retries.
 */
const ABANDONED_RESERVATION_AFTER_MS = 48_000;
const CARD = { number: TEST_CARD, expiry: { month: '1', year: '39' } };
const MONEY_OPERATIONS = ['AUTHORIZE', 'PAY', 'CAPTURE', 'REFUND', 'VOID'];

/** One answer the merchant got, or why it got none. */
type Attempt = { status: number; retryAfter: string | null; body: Record<string, unknown> | undefined; text: string } | { failed: string };

/** One merchant request (a transaction id on an order) and every answer it got. */
interface MoneyRequest {
  orderId: string;
  transactionId: string;
  operation: 'PAY' | 'REFUND' | 'AUTHORIZE' | 'CAPTURE';
  body: string;
  attempts: Attempt[];
}

/**
 * A failure drill for the money: the gateway (api-edge and order-transaction) against a NATS and
 * a Redis of this test's own, and the machine's Postgres in the run's database, under a steady
 * stream of PAY-then-REFUND and AUTHORIZE-then-CAPTURE on orders of their own, each request retried
 * as a well-behaved merchant does (the same ids and body, on a 503 or no answer, after
 * Retry-After). While it runs: order-transaction is SIGKILLed and started again, NATS is killed and
 * started again, Redis is killed and started again empty (it keeps nothing on disk). Afterwards,
 * once the gateway has settled on its own (the completions' retries, the UNKNOWN inquiries), every
 * answer must agree with the ledger, the ledger's money must add up, and the acquirer must have
 * been asked about each transaction once.
 *
 * A card reservation whose process was SIGKILLed between the reservation and its completion stays
 * PENDING until a read meets it ABANDONED_RESERVATION_AFTER_MS after its write: the merchant's
 * retry then queues it for the acquirer inquiries, which record its outcome as an UNKNOWN's
 * (docs/decisions/unknown-resolution.md, amendment of 2026-11-26). The merchant keeps coming back
 * for those until then, and every one must end with a definite answer the ledger agrees with.
 */
describe('money operations while order-transaction, NATS and Redis fail under load', () => {
  const state = readState();
  const logDir = path.join(state.logDir, 'infrastructure-failures');
  let nats: ThrowawayServer;
  let redis: ThrowawayServer;
  let edge: StartedProcess;
  let ledger: StartedProcess;
  let edgeBase: string;
  let ledgerBase: string;
  let ledgerPort: number;
  let merchant: TestMerchant;
  /**
   * Every answer that broke the spec's response rules, a reservation's PENDING body included (which
   * a retry gets while the operation runs, or for good once its process died): it carries what the
   * spec ALWAYS PROVIDES (docs/decisions/card-payment-rules.md, amendment 2026-11-26 "what a
   * reservation's body shows").
   */
  const conformance: string[] = [];
  /** `orderId/transactionId` of the reservations the SIGKILL abandoned. */
  const abandoned = new Set<string>();

  /** order-transaction's own role in the run's database: it reads the ledger's schema. */
  const ledgerDatabase = state.appEnv['order-transaction'].DATABASE_URL;
  const ledgerEnv = (): Record<string, string> => ({
    ...state.appEnv['order-transaction'],
    NATS_URL: nats.url,
    HTTP_PORT: String(ledgerPort),
    LOG_LEVEL: 'warn',
    ABANDONED_RESERVATION_AFTER_MS: String(ABANDONED_RESERVATION_AFTER_MS),
  });

  beforeAll(async () => {
    [nats, redis] = await Promise.all([throwawayNats(), throwawayRedis()]);
    const edgePort = await freePort();
    ledgerPort = await freePort();
    edgeBase = `http://127.0.0.1:${edgePort}`;
    ledgerBase = `http://127.0.0.1:${ledgerPort}`;
    ledger = startApp('order-transaction', ledgerEnv(), logDir);
    edge = startApp(
      'api-edge',
      { ...state.appEnv['api-edge'], NATS_URL: nats.url, REDIS_URL: redis.url, HTTP_PORT: String(edgePort), LOG_LEVEL: 'warn' },
      logDir,
    );
    for (const base of [ledgerBase, edgeBase]) {
      await waitFor(() => httpOk(`${base}/health/ready`), { timeoutMs: 60_000, intervalMs: 250, what: `the drill's app at ${base}` });
    }
    // An acquirer that takes a moment, as real ones do: operations are mid-call when the failures strike.
    merchant = await createMerchant({ 'testAcquirer.latencyMs': ACQUIRER_LATENCY_MS });
  });

  afterAll(async () => {
    await Promise.all([edge, ledger].map((p) => p?.stop()));
    await Promise.all([nats, redis].map((s) => s?.destroy()));
  });

  async function send(request: MoneyRequest): Promise<Attempt> {
    const urlPath = `${merchant.base()}/order/${request.orderId}/transaction/${request.transactionId}`;
    let attempt: Attempt;
    try {
      const response = await fetch(`${edgeBase}${urlPath}`, {
        method: 'PUT',
        headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
        body: request.body,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      attempt = { status: response.status, retryAfter: response.headers.get('retry-after'), body, text };
      try {
        assertConformance({ method: 'PUT', path: urlPath, body: JSON.parse(request.body) }, { status: response.status, headers: response.headers, text, body }, edgeBase);
      } catch (err) {
        conformance.push((err as Error).message);
      }
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      attempt = { failed: cause?.code ?? (err as Error).name };
    }
    request.attempts.push(attempt);
    return attempt;
  }

  /** Whether the merchant has its answer: anything but a 503, no answer, or an outcome still open (PENDING, UNKNOWN). */
  function definite(attempt: Attempt): boolean {
    if ('failed' in attempt || attempt.status === 503) {
      return false;
    }
    return !(attempt.status === 201 && ['PENDING', 'UNKNOWN'].includes(String(attempt.body?.result)));
  }

  /** Sends the request until its answer is definite, as a merchant does: the same ids and body each time. */
  async function untilDefinite(request: MoneyRequest, limitMs = RETRY_LIMIT_MS): Promise<Attempt> {
    const giveUpAt = Date.now() + limitMs;
    for (;;) {
      const attempt = await send(request);
      if (definite(attempt) || Date.now() >= giveUpAt) {
        return attempt;
      }
      const retryAfter = 'failed' in attempt ? 0.5 : Number(attempt.retryAfter ?? 1);
      await sleep(Math.max(0.2, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000);
    }
  }

  const succeeded = (attempt: Attempt) => !('failed' in attempt) && attempt.status === 201 && attempt.body?.result === 'SUCCESS';

  async function flow(n: number, requests: MoneyRequest[]): Promise<void> {
    const orderId = `drill-${n}-${Date.now().toString(36)}`;
    const card = { type: 'CARD', provided: { card: CARD } };
    const steps: MoneyRequest[] =
      n % 2 === 0
        ? [
            { orderId, transactionId: 'pay-1', operation: 'PAY', body: JSON.stringify({ apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: card }), attempts: [] },
            { orderId, transactionId: 'refund-1', operation: 'REFUND', body: JSON.stringify({ apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD' } }), attempts: [] },
          ]
        : [
            { orderId, transactionId: 'auth-1', operation: 'AUTHORIZE', body: JSON.stringify({ apiOperation: 'AUTHORIZE', order: { amount: '25.00', currency: 'USD' }, sourceOfFunds: card }), attempts: [] },
            { orderId, transactionId: 'capture-1', operation: 'CAPTURE', body: JSON.stringify({ apiOperation: 'CAPTURE', transaction: { amount: '25.00', currency: 'USD' } }), attempts: [] },
          ];
    for (const step of steps) {
      requests.push(step);
      // The follow-on only once the first is known to have succeeded: what a merchant would do.
      if (!succeeded(await untilDefinite(step))) {
        return;
      }
    }
  }

  async function restartLedger(): Promise<void> {
    ledger = startApp('order-transaction', ledgerEnv(), logDir);
    await waitFor(() => httpOk(`${ledgerBase}/health/ready`), { timeoutMs: 60_000, intervalMs: 250, what: 'order-transaction started again' });
  }

  it('keeps every answer true to the ledger, the money consistent, and each transaction sent to the acquirer once', async () => {
    const requests: MoneyRequest[] = [];
    const flows: Promise<void>[] = [];
    const started = Date.now();
    const killed: Record<string, number> = {};

    // The failures, one after the other, while the load runs.
    const failures = (async () => {
      await sleep(3_000);
      killed.ledger = Date.now();
      await ledger.stop('SIGKILL');
      await sleep(1_000);
      // Everything the ledger holds written after this was written by the new process.
      killed.ledgerRestart = Date.now();
      await restartLedger();
      await sleep(Math.max(0, started + 8_000 - Date.now()));
      killed.nats = Date.now();
      await nats.stop('SIGKILL');
      await sleep(2_000);
      await nats.start();
      await sleep(Math.max(0, started + 13_000 - Date.now()));
      killed.redis = Date.now();
      await redis.stop('SIGKILL');
      await sleep(2_000);
      await redis.start();
    })();

    // Open loop: a new order every 1/FLOWS_PER_SECOND s, whatever the answers so far.
    for (let n = 0; Date.now() - started < LOAD_MS; n++) {
      flows.push(flow(n, requests));
      await sleep(Math.max(0, started + ((n + 1) * 1000) / FLOWS_PER_SECOND - Date.now()));
    }
    await failures;
    await Promise.all(flows);
    await waitFor(() => httpOk(`${edgeBase}/health/ready`), { timeoutMs: 30_000, intervalMs: 250, what: 'the edge ready again' });

    // The gateway settles on its own: completions retried, UNKNOWN outcomes inquired about, and a
    // reservation the SIGKILL abandoned inquired about once the merchant's retry meets it old enough.
    const orderIds = [...new Set(requests.map((r) => r.orderId))];
    const abandonedBySigkill = (t: AuditedTransaction) => t.result === 'PENDING' && t.updatedAt.getTime() < killed.ledgerRestart;
    const open = (audit: OrderAudit[]) =>
      audit.flatMap((o) => o.transactions.filter((t) => ['PENDING', 'UNKNOWN'].includes(t.result)).map((t) => ({ orderId: o.orderId, ...t })));
    let audit = await auditLedger(ledgerDatabase, merchant.id, orderIds);
    open(audit)
      .filter(abandonedBySigkill)
      .forEach((t) => abandoned.add(`${t.orderId}/${t.transactionId}`));
    const abandonedSeenAt = Date.now() - killed.ledger;
    const stillAbandoned = (r: MoneyRequest) => abandoned.has(`${r.orderId}/${r.transactionId}`) && !definite(r.attempts[r.attempts.length - 1]);
    // They become abandoned ABANDONED_RESERVATION_AFTER_MS after the kill at the latest.
    const settleUntil = Math.max(Date.now(), killed.ledger + ABANDONED_RESERVATION_AFTER_MS) + SETTLE_LIMIT_MS;
    while (open(audit).length > 0 && Date.now() < settleUntil) {
      await sleep(1_000);
      if (Date.now() >= killed.ledger + ABANDONED_RESERVATION_AFTER_MS) {
        await Promise.all(requests.filter(stillAbandoned).map((r) => send(r)));
      }
      audit = await auditLedger(ledgerDatabase, merchant.id, orderIds);
    }

    // The merchant comes back for every request it has no definite answer to.
    await Promise.all(requests.filter((r) => !definite(r.attempts[r.attempts.length - 1])).map((r) => untilDefinite(r, 3_000)));
    audit = await auditLedger(ledgerDatabase, merchant.id, orderIds);

    const transaction = new Map<string, AuditedTransaction>(audit.flatMap((o) => o.transactions.map((t) => [`${o.orderId}/${t.transactionId}`, t] as const)));
    const disagreements: string[] = [];
    for (const request of requests) {
      const final = request.attempts[request.attempts.length - 1];
      const recorded = transaction.get(`${request.orderId}/${request.transactionId}`);
      const what = `${request.operation} ${request.orderId}/${request.transactionId} answered ${'failed' in final ? final.failed : `${final.status} ${String(final.body?.result)}`}, recorded ${recorded?.result ?? 'nothing'}`;
      if (!definite(final)) {
        disagreements.push(`${what}: no definite answer`);
      } else if (succeeded(final) ? recorded?.result !== 'SUCCESS' : recorded?.result === 'SUCCESS') {
        disagreements.push(what);
      }
    }

    const answers = requests.flatMap((r) => r.attempts);
    const badServerErrors = answers.filter(
      (a) =>
        !('failed' in a) &&
        a.status >= 500 &&
        !(a.status === 503 && /^\d+$/.test(a.retryAfter ?? '') && a.body?.result === 'ERROR' && (a.body.error as { cause?: string } | undefined)?.cause === 'SERVER_BUSY'),
    );

    // Acquirer calls by order-transaction since its restart (a fresh counter), against the
    // transactions the ledger holds that it reserved: each exactly once, including those the
    // killed process had reserved (their retries must replay, not call again).
    const metrics = await (await fetch(`${ledgerBase}/metrics`)).text();
    const calls = MONEY_OPERATIONS.reduce((sum, operation) => sum + counterTotal(metrics, 'gateway_acquirer_requests_total', { operation }), 0);
    const reservedSinceRestart = audit.flatMap((o) => o.transactions).filter((t) => t.createdAt.getTime() > killed.ledgerRestart);
    const stillOpen = open(audit);

    const summary = {
      flows: flows.length,
      requests: requests.length,
      attempts: answers.length,
      byAnswer: countBy(answers.map(answerKind)),
      acquirerCallsSinceRestart: calls,
      transactionsReservedSinceRestart: reservedSinceRestart.length,
      pendingAnswersChecked: answers.filter((a) => !('failed' in a) && a.status === 201 && a.body?.result === 'PENDING').length,
      // Left PENDING by the SIGKILL, seen when the load was over, and how each ended.
      abandonedBySigkill: abandoned.size,
      abandonedSeenAfterKillS: (abandonedSeenAt / 1000).toFixed(1),
      abandonedEndedAs: countBy([...abandoned].map((id) => transaction.get(id)?.result ?? 'nothing')),
      failuresAt: Object.fromEntries(Object.entries(killed).map(([k, at]) => [k, `${((at - started) / 1000).toFixed(1)} s`])),
    };
    process.stdout.write(`infrastructure-failures drill: ${JSON.stringify(summary, null, 2)}\n`);

    expect(Object.keys(killed)).toEqual(['ledger', 'ledgerRestart', 'nats', 'redis']);
    expect(disagreements).toEqual([]);
    expect(conformance).toEqual([]);
    expect(badServerErrors.map((a) => ('failed' in a ? a.failed : `${a.status} retry-after=${a.retryAfter} ${a.text.slice(0, 200)}`))).toEqual([]);
    expect(audit.filter((o) => o.overRefunded || o.overCaptured || o.totalsMismatch.length > 0)).toEqual([]);
    expect(audit.flatMap((o) => o.transactions).filter((t) => !t.stored)).toEqual([]);
    expect(stillOpen).toEqual([]);
    expect(reservedSinceRestart.filter((t) => t.result === 'PENDING')).toEqual([]);
    expect(calls).toBe(reservedSinceRestart.length);
  });
});

function answerKind(attempt: Attempt): string {
  if ('failed' in attempt) {
    return `no answer (${attempt.failed})`;
  }
  const detail =
    attempt.status === 201
      ? (attempt.body?.response as { gatewayCode?: string } | undefined)?.gatewayCode
      : (attempt.body?.error as { explanation?: string } | undefined)?.explanation?.slice(0, 60);
  return `${attempt.status} ${String(attempt.body?.result)} ${String(detail)}`;
}

function countBy(values: string[]): Record<string, number> {
  return values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});
}
