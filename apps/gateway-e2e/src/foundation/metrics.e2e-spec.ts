import { readState } from '../support/e2e-state';
import { call } from '../support/gateway-client';
import { counterTotal, scrapeMetrics } from '../support/metrics';

/**
 * Where Prometheus scrapes the edge. Deployed (k8s/), the edge serves /metrics on a port of its
 * own so that its NetworkPolicy lets Prometheus in to that port only, never to the API's; the
 * distributed run starts it so. The standalone run keeps the default: /metrics on the HTTP port.
 */
describe('the edge\'s metrics', () => {
  const state = readState();
  const edge = state.profile === 'standalone' ? 'gateway' : 'api-edge';

  it('count the API\'s requests where Prometheus scrapes them, an error by its status and result', async () => {
    const counted = () =>
      scrapeMetrics(edge).then((text) => counterTotal(text, 'gateway_http_request_duration_seconds_count', { status: '401', result: 'ERROR' }));
    const before = await counted();

    expect((await call('PUT', '/api/rest/version/100/merchant/NOSUCHMERCHANT/order/o-1/transaction/t-1', { body: {} })).status).toBe(401);

    expect(await counted()).toBe(before + 1);
  });

  it(state.profile === 'standalone' ? 'are on the API\'s port without METRICS_PORT' : 'are not on the API\'s port', async () => {
    const onApiPort = await fetch(`${state.baseUrl}/metrics`);

    expect(onApiPort.status).toBe(state.profile === 'standalone' ? 200 : 404);
  });
});
