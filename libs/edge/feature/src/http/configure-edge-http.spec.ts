import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { createLogger, Metrics } from '@gateway/platform';
import { logLinesInto } from '@gateway/testing';
import { configureEdgeHttp } from './configure-edge-http';

/**
 * The latency histogram and the access log count every request once, the one whose client left
 * before its answer included: Fastify's onResponse never runs for it (its response never
 * finishes), and those are the slowest requests, the ones a merchant's timeout gave up on.
 */
describe('the edge records every request once in its latency histogram and access log', () => {
  let fastify: FastifyInstance;
  let metrics: Metrics;
  let lines: Record<string, unknown>[];
  let release: () => void;
  let entered: Promise<void>;

  beforeEach(async () => {
    lines = [];
    metrics = new Metrics();
    const logger = createLogger({ service: 'test', level: 'info', destination: logLinesInto(lines) });
    fastify = Fastify();
    configureEdgeHttp(fastify, logger, metrics, { maxUrlLength: 2_000, maxInFlight: 0 });
    let enter: () => void;
    entered = new Promise<void>((resolve) => (enter = resolve));
    const answer = new Promise<void>((resolve) => (release = resolve));
    fastify.get('/api/slow/:id', async (_request, reply) => {
      enter();
      await answer;
      return reply.status(503).send({ result: 'ERROR' });
    });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
  });

  afterEach(async () => {
    release();
    await fastify.close();
  });

  const port = () => (fastify.server.address() as AddressInfo).port;

  async function count(): Promise<number> {
    const histogram = await metrics.httpRequestDuration.get();
    return histogram.values
      .filter(
        (v) =>
          v.metricName === 'gateway_http_request_duration_seconds_count' &&
          v.labels.route === '/api/slow/:id' &&
          v.labels.status === '503',
      )
      .reduce((sum, v) => sum + v.value, 0);
  }

  const accessLines = () => lines.filter((line) => line.msg === 'request');

  it('counts a request whose client left before the answer, with the status it was answered and its time', async () => {
    const sent = httpRequest({ host: '127.0.0.1', port: port(), path: '/api/slow/1' });
    sent.on('error', () => undefined);
    sent.end();
    await entered;
    sent.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(await count()).toBe(1);
    expect(accessLines()).toEqual([
      expect.objectContaining({ route: '/api/slow/:id', status: 503, clientGone: true }),
    ]);
    expect(accessLines()[0].ms).toBeGreaterThanOrEqual(50);
  });

  it('counts an answered request once, not also as a client that left', async () => {
    const answered = fetch(`http://127.0.0.1:${port()}/api/slow/2`);
    await entered;
    release();
    expect((await answered).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(await count()).toBe(1);
    expect(accessLines()).toEqual([expect.objectContaining({ route: '/api/slow/:id', status: 503 })]);
    expect(accessLines()[0]).not.toHaveProperty('clientGone');
  });
});
