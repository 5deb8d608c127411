import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '@gateway/contracts';
import { AppLogger, BootstrapOptions, enterRequestContext, Metrics, sendGatewayError } from '@gateway/platform';
import { EdgeConfig } from '../edge.config';
import { edgeHttpsOptions } from '../edge-tls';
import { ApiRequest } from './api-request';
import { TrustedProxies } from './trusted-proxies';

const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;

export interface EdgeHttpLimits {
  /** Longer request URLs are answered 400 before anything else. */
  maxUrlLength: number;
}

/** EdgeConfig's defaults, for callers that set up the HTTP plumbing without a config. */
const DEFAULT_LIMITS: EdgeHttpLimits = { maxUrlLength: new EdgeConfig().HTTP_URL_MAX_LENGTH };

/**
 * The edge's HTTP server as every main starts it: HTTPS when configured (with client
 * certificates), the proxies whose forwarded headers are believed, and the transport limits
 * (body size, request line and headers, URL length), which are checked before anything else,
 * credentials included: they bound what the edge reads at all.
 */
export function edgeServerOptions(
  config: EdgeConfig,
  logger: AppLogger,
  metrics: Metrics,
): Pick<BootstrapOptions, 'bodyLimit' | 'trustProxy' | 'https' | 'maxHeaderBytes' | 'maxParamLength' | 'configureHttp'> {
  const proxies = new TrustedProxies(config.TRUSTED_PROXIES);
  return {
    bodyLimit: config.HTTP_BODY_LIMIT_BYTES,
    trustProxy: proxies.entries.length > 0 ? proxies.entries : false,
    https: edgeHttpsOptions(config),
    maxHeaderBytes: config.HTTP_HEADERS_MAX_BYTES,
    // Every URL within the length limit reaches its route, so a long id gets the id's error.
    maxParamLength: config.HTTP_URL_MAX_LENGTH,
    configureHttp: (fastify) => configureEdgeHttp(fastify, logger, metrics, { maxUrlLength: config.HTTP_URL_MAX_LENGTH }),
  };
}

/**
 * The edge's HTTP plumbing, before any route:
 * - bodies are kept as raw bytes and parsed by the controllers, after the credentials and the
 *   path are checked (the spec's order of checks), whatever the Content-Type says;
 * - every request gets a request id (an ingress's X-Request-Id if well-formed), returned in
 *   the X-Request-Id header and carried on every log line of every process it reaches;
 * - an over-long URL is refused before anything else looks at it;
 * - every response is counted in the latency histogram and written to the access log.
 */
export function configureEdgeHttp(fastify: FastifyInstance, logger: AppLogger, metrics: Metrics, limits: EdgeHttpLimits = DEFAULT_LIMITS): void {
  fastify.removeAllContentTypeParsers();
  // Bytes, not text: decoding is the JSON layer's, which refuses what is not UTF-8 instead of
  // letting it become U+FFFD.
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  fastify.addHook('onRequest', (request, reply, done) => {
    const incoming = request.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const logContext = { requestId };
    (request as ApiRequest).requestId = requestId;
    (request as ApiRequest).logContext = logContext;
    enterRequestContext(logContext);
    void reply.header('X-Request-Id', requestId);
    if (request.url.length > limits.maxUrlLength) {
      // Answered here (the hook does not call done): no route, guard or handler runs.
      sendGatewayError(reply, GatewayError.invalidRequest(`The request URL is longer than ${limits.maxUrlLength} characters.`));
      return;
    }
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
