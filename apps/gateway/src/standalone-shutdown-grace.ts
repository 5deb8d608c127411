import { edgeJobsStop, EdgeConfig, longestEdgeRequest } from '@gateway/edge/feature';
import { ledgerJobsStop, longestReservedOperation, OrderTransactionConfig } from '@gateway/order-transaction/feature';
import { ConfigError, SHUTDOWN_DRAIN_MARGIN_MS } from '@gateway/platform';

/**
 * The shortest SHUTDOWN_GRACE_MS with which the standalone gateway (every app in one process)
 * cuts off none of its work: each app's formula alone misses what the others add. Its background
 * jobs, the ledger's and the edge's expired-payment sweep, stop together (BackgroundJobs), so the
 * hooks last the longest of them; meanwhile the HTTP server still takes requests. Then the
 * requests in flight: the edge's HTTP requests and the ledger's card operations they sent,
 * whichever is longer. Then the drain.
 */
export function standaloneShutdownGraceNeeded(edge: EdgeConfig, ledger: OrderTransactionConfig): number {
  const jobs = Math.max(ledgerJobsStop(ledger), edgeJobsStop(edge));
  const requests = Math.max(longestReservedOperation(ledger), longestEdgeRequest(edge));
  return jobs + requests + SHUTDOWN_DRAIN_MARGIN_MS;
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
    `the edge's expired-payment settlement, NATS_REQUEST_TIMEOUT_MS), then finishes the requests in flight, the longer of the ledger's ` +
    `card operation (${longestReservedOperation(ledger)}) and the edge's HTTP request (${longestEdgeRequest(edge)}), then drains (${SHUTDOWN_DRAIN_MARGIN_MS})`;
  throw new ConfigError([{ variable: 'SHUTDOWN_GRACE_MS', problem }]);
}
