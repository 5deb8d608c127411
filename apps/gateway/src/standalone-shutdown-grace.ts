import { edgeJobsStop, EdgeConfig, latestOrderOperationStart, longestEdgeRequest } from '@gateway/edge/feature';
import { ledgerJobsStop, longestReservedOperation, OrderTransactionConfig } from '@gateway/order-transaction/feature';
import { ConfigError, loadConfig, MAX_SHUTDOWN_GRACE_MS, SHUTDOWN_DRAIN_MARGIN_MS } from '@gateway/platform';

/**
 * The shortest SHUTDOWN_GRACE_MS with which the standalone gateway (every app in one process)
 * cuts off none of its work: each app's formula alone misses what the others add. Its background
 * jobs, the ledger's and the edge's expired-payment sweep, stop together (BackgroundJobs), so the
 * hooks last the longest of them; meanwhile the HTTP server still takes requests. Then the work
 * in flight, whichever ends last: the edge's longest HTTP request, or a ledger card operation one
 * of them began. An order operation taken just before the HTTP server closed may have its card
 * operation begun as late as its lock wait and its requests' one budget allow
 * (latestOrderOperationStart), and that runs its whole length (longestReservedOperation) after
 * the edge has stopped waiting for it; the in-process message server waits for it. Then the drain.
 */
export function standaloneShutdownGraceNeeded(edge: EdgeConfig, ledger: OrderTransactionConfig): number {
  const jobs = Math.max(ledgerJobsStop(ledger), edgeJobsStop(edge));
  const inFlight = Math.max(longestEdgeRequest(edge), latestCardOperationEnd(edge, ledger));
  return jobs + inFlight + SHUTDOWN_DRAIN_MARGIN_MS;
}

/** How long after the edge takes an order operation's HTTP request the card operation it sends may still be running. */
function latestCardOperationEnd(edge: EdgeConfig, ledger: OrderTransactionConfig): number {
  return latestOrderOperationStart(edge) + longestReservedOperation(ledger);
}

/** Refuses to start the standalone gateway with a shorter grace than it needs, as api-edge and order-transaction refuse theirs. */
export function checkStandaloneShutdownGrace(edge: EdgeConfig, ledger: OrderTransactionConfig): void {
  const needed = standaloneShutdownGraceNeeded(edge, ledger);
  if (edge.SHUTDOWN_GRACE_MS >= needed) {
    return;
  }
  const problem =
    `must be at least ${needed}: the standalone gateway first stops its background jobs together, the longest ` +
    `${Math.max(ledgerJobsStop(ledger), edgeJobsStop(edge))} (the ledger's inquiry in progress or deliveries in flight, WEBHOOK_TIMEOUT_MS; ` +
    `the edge's expired-payment settlement, NATS_REQUEST_TIMEOUT_MS), then finishes the work in flight, whichever ends last of the edge's ` +
    `longest HTTP request (${longestEdgeRequest(edge)}) and a card operation (${latestCardOperationEnd(edge, ledger)}: begun as late as an order ` +
    `operation's lock wait and budget allow, ORDER_LOCK_WAIT_MS + NATS_REQUEST_TIMEOUT_MS = ${latestOrderOperationStart(edge)}, then running ` +
    `the ledger's longest, REFUND_CALL_TIMEOUT_MS with its reversal and its completion's retries, ${longestReservedOperation(ledger)}), ` +
    `then drains (${SHUTDOWN_DRAIN_MARGIN_MS}); left unset, it defaults to what the gateway needs`;
  throw new ConfigError([{ variable: 'SHUTDOWN_GRACE_MS', problem }]);
}

/**
 * The standalone profile's settings with SHUTDOWN_GRACE_MS as the operator set it, or else what
 * this process needs with its other settings (standaloneShutdownGraceNeeded: 60100 with the
 * defaults). The platform's default (DEFAULT_SHUTDOWN_GRACE_MS, 50 s) is each distributed app's
 * and covers their own stops, not the one process's. A grace is a maximum: a gateway with nothing
 * in flight exits at once. A value the operator set is kept, and checked (checkStandaloneShutdownGrace).
 */
export function withStandaloneShutdownGrace<T extends Record<string, string | undefined>>(env: T): T & { SHUTDOWN_GRACE_MS: string } {
  // An empty value counts as unset, as loadConfig reads every variable.
  if (env.SHUTDOWN_GRACE_MS) {
    return { ...env, SHUTDOWN_GRACE_MS: env.SHUTDOWN_GRACE_MS };
  }
  // The terms alone, read under the longest grace accepted, which each app's own check passes
  // (with a shorter one, settings the standalone's default covers would be refused by an app's).
  const terms = { ...env, SHUTDOWN_GRACE_MS: String(MAX_SHUTDOWN_GRACE_MS) };
  const needed = standaloneShutdownGraceNeeded(loadConfig(EdgeConfig, terms), loadConfig(OrderTransactionConfig, terms));
  return { ...env, SHUTDOWN_GRACE_MS: String(needed) };
}
