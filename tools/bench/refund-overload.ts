/**
 * The `refund-overload` scenario (docs/decisions/overload-behaviour.md, recommendation 5):
 * REFUNDs at a steady open-loop rate above what the gateway serves, each on a captured order of
 * its own, then the ledger read back once the backlog has drained. Open loop is the point: a
 * refused client does not come straight back, as autocannon's closed loop does, so the load is
 * the rate asked for whatever the answers (edge-admission.md, Measured). Distributed profile
 * only: the ledger is read in the run's own database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { metricSum } from './gc-trace';
import type { BenchMerchant, RunningGateway } from './gateway';
import { Traffic, watchProcesses } from './load';
import { ledgerProgress, OverloadAnswers, OverloadFigures, overloadProblems, readRefundLedger, summarizeLedger } from './overload';
import { ScenarioResult, scenarioResult } from './results';
import { capturedOrders } from './scenarios';
import { runSteadyLoad } from './steady-load';

/**
 * Long enough to see every answer: the edge answers within NATS_REQUEST_TIMEOUT_MS (10 s) of
 * sending to the service, after its own queue; finding 6 saw the edge's p99 at more than twice its
 * NATS timeout.
 */
export const OVERLOAD_CLIENT_TIMEOUT_MS = 60_000;
const TRANSACTION_ID = 'refund-1';
/** The longest wait for the abandoned backlog to drain before the ledger is read. */
const DRAIN_LIMIT_MS = 120_000;
/** The ledger must hold still this many polls, a second apart, to count as drained. */
const STILL_POLLS = 3;

async function scrape(port: number): Promise<string> {
  return fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })
    .then((r) => r.text())
    .catch(() => '');
}

async function shedCounts(gateway: RunningGateway): Promise<OverloadFigures['shed']> {
  const [edge, service] = await Promise.all([scrape(gateway.ports['api-edge']), scrape(gateway.ports['order-transaction'])]);
  return {
    edge: metricSum(edge, 'gateway_edge_requests_shed_total'),
    service: metricSum(service, 'gateway_messages_shed_total'),
    pastDeadline: metricSum(service, 'gateway_messages_past_deadline_total'),
  };
}

/**
 * Waits until the service has stopped working on the refunds nobody waits for any more: the
 * scenario's refund rows and PENDING rows unchanged over STILL_POLLS polls, no PENDING row, and no
 * query waiting for one of order-transaction's pool connections.
 */
async function drained(gateway: RunningGateway, databaseUrl: string, merchantId: string, orderIds: string[]): Promise<number> {
  const started = Date.now();
  let last = '';
  let still = 0;
  while (Date.now() - started < DRAIN_LIMIT_MS) {
    const progress = await ledgerProgress(databaseUrl, merchantId, orderIds);
    const waiting = metricSum(await scrape(gateway.ports['order-transaction']), 'gateway_db_pool_waiting_queries');
    const now = JSON.stringify(progress);
    still = now === last && progress.pending === 0 && waiting === 0 ? still + 1 : 0;
    last = now;
    if (still >= STILL_POLLS) {
      break;
    }
    await sleep(1_000);
  }
  return Math.round((Date.now() - started) / 100) / 10;
}

export async function measureRefundOverload(
  gateway: RunningGateway,
  merchant: BenchMerchant,
  run: { rate: number; durationSeconds: number; env: Record<string, string> },
  log: (message: string) => void,
): Promise<ScenarioResult> {
  if (!gateway.databaseUrl) {
    throw new Error('refund-overload reads the ledger in the run database: distributed profile only');
  }
  const count = Math.max(1, Math.round(run.rate * run.durationSeconds));
  log(`distributed refund-overload: preparing ${count} captured orders`);
  const orders = await capturedOrders(gateway, merchant, count);
  const answers = new OverloadAnswers();
  const traffic: Traffic = {
    baseUrl: gateway.baseUrl,
    method: 'PUT',
    // One request per order, each under the same transaction id: the ledger row of request n is orders[n]'s.
    path: (n) => `${merchant.base(29)}/order/${orders[n]}/transaction/${TRANSACTION_ID}`,
    headers: { authorization: merchant.authorization },
    body: JSON.stringify({ apiOperation: 'REFUND', transaction: { amount: '1.00', currency: 'USD' } }),
    expectStatus: 201,
    expectBody: '"result":"SUCCESS"',
    onAnswer: (n, answer) => answers.record(n, answer),
  };
  log(`distributed refund-overload: ${run.durationSeconds} s at ${run.rate} refunds/s, open loop${Object.keys(run.env).length ? `, ${JSON.stringify(run.env)}` : ''}`);
  const shedBefore = await shedCounts(gateway);
  const watch = watchProcesses(gateway.pids, gateway.postgres);
  // No socket limit: every request is sent when due, however many are unanswered.
  const { load } = await runSteadyLoad(traffic, { connections: Infinity, durationSeconds: run.durationSeconds, rate: run.rate, timeoutMs: OVERLOAD_CLIENT_TIMEOUT_MS });
  const processes = watch.stop();
  const shedAfter = await shedCounts(gateway);
  const drainSeconds = await drained(gateway, gateway.databaseUrl, merchant.id, orders);
  const ledger = await readRefundLedger(gateway.databaseUrl, merchant.id, orders, TRANSACTION_ID);
  const counts = answers.counts();
  const summary = summarizeLedger(answers.classes, (n) => orders[n], ledger);
  const latency = answers.successLatency();
  const figures: OverloadFigures = {
    rate: run.rate,
    clientTimeoutMs: OVERLOAD_CLIENT_TIMEOUT_MS,
    env: run.env,
    answers: counts,
    unanswered: answers.unanswered,
    goodput: Math.round((10 * counts.success) / run.durationSeconds) / 10,
    successP50: latency.p50,
    successP99: latency.p99,
    shed: { edge: shedAfter.edge - shedBefore.edge, service: shedAfter.service - shedBefore.service, pastDeadline: shedAfter.pastDeadline - shedBefore.pastDeadline },
    drainSeconds,
    ledger: summary,
    problems: overloadProblems(counts, summary),
  };
  const result = scenarioResult(
    { profile: 'distributed', scenario: 'refund-overload', connections: 0, rate: run.rate, notes: `open loop, ${count} orders with 100.00 captured, one refund each` },
    load,
    { expected: load.requests.total - counts.other, unexpected: counts.other, samples: answers.otherSamples },
    processes,
  );
  const busy = summary.byAnswer['busy-may-have-processed'];
  log(
    `  goodput ${figures.goodput}/s (p50 ${latency.p50} ms, p99 ${latency.p99} ms); 503 "may have been processed" ${counts['busy-may-have-processed']} ` +
      `(recorded SUCCESS ${busy.SUCCESS}, PENDING ${busy.PENDING}, UNKNOWN ${busy.UNKNOWN}), plain 503 ${counts.busy}, other ${counts.other}, unanswered ${counts['no-answer']}${counts['no-answer'] ? ` ${JSON.stringify(answers.unanswered)}` : ''}; ` +
      `shed: edge ${figures.shed.edge}, order-transaction ${figures.shed.service}, past deadline ${figures.shed.pastDeadline}; drained in ${drainSeconds} s` +
      `${figures.problems.length ? `; PROBLEMS: ${figures.problems.join('; ')}` : ''}`,
  );
  return { ...result, overload: figures };
}
