import { readState } from './e2e-state';

/**
 * The sum of a Prometheus counter's series whose labels include `labels`, from an app's
 * /metrics (`app`: a distributed app's name, or `gateway` in the standalone profile).
 */
export async function counterSum(app: string, name: string, labels: Record<string, string>): Promise<number> {
  const url = readState().appUrls[app];
  if (!url) {
    throw new Error(`no app '${app}' in this e2e run`);
  }
  const text = await (await fetch(`${url}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && wanted.every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The app that calls the acquirer for order-transaction's refunds in this run's profile. */
export function refundingApp(): string {
  return readState().profile === 'standalone' ? 'gateway' : 'order-transaction';
}

/** Refund calls the acquirer answered, counted by `gateway_acquirer_requests_total` of `app`. */
export function acquirerRefundCalls(app = refundingApp()): Promise<number> {
  return counterSum(app, 'gateway_acquirer_requests_total', { operation: 'REFUND' });
}
