import { readState } from './e2e-state';

/**
 * The Prometheus text of the app that serves `app`'s metrics: in the distributed profile each
 * app has its own HTTP port (the edge a metrics port of its own); in the standalone profile
 * every app shares the gateway's.
 */
export async function scrapeMetrics(app: string): Promise<string> {
  const state = readState();
  const base = state.profile === 'standalone' ? state.appUrls.gateway : (state.metricsUrls?.[app] ?? state.appUrls[app]);
  const response = await fetch(`${base}/metrics`);
  if (response.status !== 200) {
    throw new Error(`GET ${base}/metrics answered ${response.status}`);
  }
  return response.text();
}

/** The sum of a counter's samples whose labels include all of `labels`. */
export function counterTotal(metrics: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => wanted.every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** `gateway_acquirer_requests_total` of one operation, as counted by `app`. */
export async function acquirerCalls(app: string, operation = 'VERIFY'): Promise<number> {
  return counterTotal(await scrapeMetrics(app), 'gateway_acquirer_requests_total', { operation });
}

/** Refund calls the acquirer answered, as counted by `app` (order-transaction makes them). */
export function acquirerRefundCalls(app = 'order-transaction'): Promise<number> {
  return acquirerCalls(app, 'REFUND');
}
