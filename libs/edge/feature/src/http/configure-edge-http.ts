import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppLogger, enterRequestContext, Metrics } from '@gateway/platform';
import { ApiRequest } from './api-request';

const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The edge's HTTP plumbing, before any route:
 * - bodies are kept as raw text and parsed by the controllers, after the credentials and the
 *   path are checked (the spec's order of checks), whatever the Content-Type says;
 * - every request gets a request id (an ingress's X-Request-Id if well-formed), returned in
 *   the X-Request-Id header and carried on every log line of every process it reaches;
 * - every response is counted in the latency histogram and written to the access log.
 */
export function configureEdgeHttp(fastify: FastifyInstance, logger: AppLogger, metrics: Metrics): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  fastify.addHook('onRequest', (request, reply, done) => {
    const incoming = request.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const logContext = { requestId };
    (request as ApiRequest).requestId = requestId;
    (request as ApiRequest).logContext = logContext;
    enterRequestContext(logContext);
    void reply.header('X-Request-Id', requestId);
    done();
  });

  // One access log line and one latency observation per request, once the response is sent.
  fastify.addHook('onResponse', (request, reply, done) => {
    const api = request as ApiRequest;
    const route = request.routeOptions.url ?? 'unknown';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequestDuration.observe(
      {
        route,
        operation: api.apiOperation ?? 'none',
        status: String(reply.statusCode),
        result: api.apiResult ?? 'none',
      },
      seconds,
    );
    if (!route.startsWith('/health') && route !== '/metrics') {
      logger.info(
        {
          ...api.logContext,
          method: request.method,
          route,
          operation: api.apiOperation,
          status: reply.statusCode,
          result: api.apiResult,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
    }
    done();
  });
}
