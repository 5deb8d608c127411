import { RunningApp } from '../bootstrap';
import { startPlatformApp } from '../test-support';
import { MetricsListen, MetricsServer, metricsUrl } from './metrics-server';

function start(metricsListen?: MetricsListen): Promise<RunningApp> {
  return startPlatformApp('metrics-probe', { metricsListen });
}

describe('metrics on a port of their own', () => {
  let running: RunningApp | undefined;

  afterEach(async () => {
    await running?.shutdown('test over');
    running = undefined;
  });

  it('serves /metrics there, and the app\'s port no longer does', async () => {
    running = await start({ host: '127.0.0.1', port: 0 });
    const base = running.app.get(MetricsServer).url();

    const scrape = await fetch(`${base}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await scrape.text()).toContain('gateway_http_request_duration_seconds');

    expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
    // Only /metrics is there: not the health endpoints, not anything else.
    expect((await fetch(`${base}/health/ready`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    // Health stays on the app's port, for the kubelet.
    expect((await fetch(`${running.url}/health/live`)).status).toBe(200);
  });

  it('names its address in a URL, IPv6 included', () => {
    expect(metricsUrl('0.0.0.0', 9464)).toBe('http://127.0.0.1:9464');
    expect(metricsUrl('::', 9464)).toBe('http://127.0.0.1:9464');
    expect(metricsUrl('::1', 9464)).toBe('http://[::1]:9464');
    expect(metricsUrl('10.1.2.3', 9464)).toBe('http://10.1.2.3:9464');
  });

  it('closes with the app', async () => {
    running = await start({ host: '127.0.0.1', port: 0 });
    const base = running.app.get(MetricsServer).url();
    await running.shutdown('test: closing');
    running = undefined;

    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });

  it('without a port of their own, serves /metrics on the app\'s port', async () => {
    running = await start();

    const scrape = await fetch(`${running.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('gateway_http_request_duration_seconds');
  });
});
