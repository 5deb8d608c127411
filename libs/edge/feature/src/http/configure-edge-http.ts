import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeText } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';
import { AppLogger, BootstrapOptions, enterRequestContext, Metrics, sendGatewayError, sortKeysDeep } from '@gateway/platform';
import { EdgeConfig } from '../edge.config';
import { edgeHttpsOptions } from '../edge-tls';
import { ApiRequest } from './api-request';
import { EdgeAdmission } from './edge-admission';
import { payerUnavailablePage, sendPayerPage } from './payer-error-pages';
import { TrustedProxies } from './trusted-proxies';

const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;

export interface EdgeHttpLimits {
  /** Longer request URLs are answered 400 before anything else. */
  maxUrlLength: number;
  /** Most requests answered at once (EDGE_MAX_IN_FLIGHT); 0: no cap. */
  maxInFlight: number;
  /** The edge terminates TLS itself (TLS_CERT_FILE): its answers carry HSTS. */
  servesTls?: boolean;
}

/** EdgeConfig's defaults, for callers that set up the HTTP plumbing without a config. */
const DEFAULTS = new EdgeConfig();
const DEFAULT_LIMITS: EdgeHttpLimits = { maxUrlLength: DEFAULTS.HTTP_URL_MAX_LENGTH, maxInFlight: DEFAULTS.EDGE_MAX_IN_FLIGHT };

/**
 * The edge's HTTP server as every main starts it: HTTPS when configured (with client
 * certificates), the proxies whose forwarded headers are believed, and the transport limits
 * (body size, time to send the request, request line and headers, URL length), which are
 * checked before anything else, credentials included: they bound what the edge reads at all.
 */
export function edgeServerOptions(
  config: EdgeConfig,
  logger: AppLogger,
  metrics: Metrics,
): Pick<
  BootstrapOptions,
  'bodyLimit' | 'trustProxy' | 'https' | 'requestTimeoutMs' | 'maxHeaderBytes' | 'maxParamLength' | 'refusalHeaders' | 'configureHttp'
> {
  const proxies = new TrustedProxies(config.TRUSTED_PROXIES);
  const https = edgeHttpsOptions(config);
  return {
    bodyLimit: config.HTTP_BODY_LIMIT_BYTES,
    trustProxy: proxies.entries.length > 0 ? proxies.entries : false,
    https,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    maxHeaderBytes: config.HTTP_HEADERS_MAX_BYTES,
    // Every URL within the length limit reaches its route, so a long id gets the id's error.
    maxParamLength: config.HTTP_URL_MAX_LENGTH,
    // What is refused before any hook (Node's parser, a URL not valid percent-encoding) carries
    // the headers the onSend hook gives every other answer.
    refusalHeaders: securityHeaders(https !== undefined),
    configureHttp: (fastify) =>
      configureEdgeHttp(fastify, logger, metrics, {
        maxUrlLength: config.HTTP_URL_MAX_LENGTH,
        maxInFlight: config.EDGE_MAX_IN_FLIGHT,
        servesTls: https !== undefined,
      }),
  };
}

/**
 * The edge's HTTP plumbing, before any route:
 * - bodies are kept as raw bytes and parsed by the controllers, after the credentials and the
 *   path are checked (the spec's order of checks), whatever the Content-Type says;
 * - every request gets a request id (an ingress's X-Request-Id if well-formed), returned in
 *   the X-Request-Id header and carried on every log line of every process it reaches;
 * - an over-long URL is refused before anything else looks at it, as is an Expect header other
 *   than 100-continue (Node's own answer would be an empty 417);
 * - past EDGE_MAX_IN_FLIGHT requests in flight, one more is refused at once (EdgeAdmission);
 * - every response carries the security headers (securityHeaders);
 * - every response is counted in the latency histogram and written to the access log.
 */
export function configureEdgeHttp(fastify: FastifyInstance, logger: AppLogger, metrics: Metrics, limits: EdgeHttpLimits = DEFAULT_LIMITS): void {
  fastify.removeAllContentTypeParsers();
  // Bytes, not text: decoding is the JSON layer's, which refuses what is not UTF-8 instead of
  // letting it become U+FFFD.
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    // Read as they are, coded bytes would be another request than a proxy or WAF that decodes
    // them sees (and a compressed body would be answered "not valid UTF-8").
    const content = codingsOf(request.headers['content-encoding'], 'identity');
    const transfer = codingsOf(request.headers['transfer-encoding'], 'chunked');
    if (content !== undefined) {
      done(GatewayError.invalidRequest(`The request body is in Content-Encoding '${safeText(content)}'; only an uncompressed body (identity) is accepted.`));
    } else if (transfer !== undefined) {
      done(GatewayError.invalidRequest(`The request body is in Transfer-Encoding '${safeText(transfer)}'; only chunked is accepted.`));
    } else {
      done(null, body);
    }
  });

  const headers = securityHeaders(limits.servesTls ?? false);

  // An Expect other than 100-continue: Node would answer an empty 417 itself, before any hook
  // (so with the security headers set here).
  fastify.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const error = GatewayError.invalidRequest(`The Expect header '${safeText(String(request.headers.expect))}' is not supported; only 100-continue is.`);
    const body = JSON.stringify(sortKeysDeep(error.toResponseBody()));
    response
      .writeHead(error.httpStatus, {
        ...Object.fromEntries(headers),
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      })
      .end(body);
  });

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

  // Admission comes once the body's bytes are in (a slow sender holds no slot: receiving is
  // bounded by HTTP_REQUEST_TIMEOUT_MS and the body limit) and before anything costs: the
  // credentials and the throttle (the route's guard), the JSON parsing and the order lock (its
  // handler) all come after it.
  // Probes and metrics are never refused: a liveness probe refused at the cap would restart a
  // busy pod, a refused readiness probe would move its load onto the others.
  const admission = new EdgeAdmission(limits.maxInFlight, metrics, logger);
  fastify.addHook('preValidation', (request, reply, done) => {
    const route = request.routeOptions.url ?? '';
    if (isProbeOrMetrics(route) || admission.admit(reply.raw)) {
      done();
      return;
    }
    // Answered here (the hook does not call done): nothing of the request is acted on. A payer's
    // browser gets the busy page it gets when a service is busy, a merchant the API's 503.
    if (route.startsWith('/bpui/')) {
      sendPayerPage(reply, payerUnavailablePage());
    } else {
      sendGatewayError(reply, GatewayError.serverBusy());
    }
  });

  // Every answer, whoever sends it (a controller, the exception filter, a hook refusing early):
  // only the headers a response has not set itself, so a payer page keeps its own CSP and the
  // health checks their own Cache-Control.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    for (const [name, value] of headers) {
      if (!reply.hasHeader(name)) {
        void reply.header(name, value);
      }
    }
    // A client that left before its answer was sent (its own timeout, a cut connection) gets no
    // onResponse: Fastify waits for the response's 'finish', which a response written to a closed
    // connection never emits. Its request is recorded here, once its answer is ready (this hook
    // still runs), with that answer's status and the time it took: otherwise the slowest
    // requests, those clients give up on, are the ones missing from the latency histogram, the
    // 5xx rate and the access log.
    if (reply.raw.destroyed) {
      record(request, reply, true);
    } else {
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) {
          record(request, reply, true);
        }
      });
    }
    done(null, payload);
  });

  // One access log line and one latency observation per request, once the response is sent.
  fastify.addHook('onResponse', (request, reply, done) => {
    record(request, reply, false);
    done();
  });

  const recorded = new WeakSet<FastifyRequest>();
  function record(request: FastifyRequest, reply: FastifyReply, clientGone: boolean): void {
    if (recorded.has(request)) {
      return;
    }
    recorded.add(request);
    const api = request as ApiRequest;
    const route = request.routeOptions.url ?? 'unknown';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequestDuration.observe(
      {
        route,
        operation: api.apiOperation ?? 'none',
        status: String(reply.statusCode),
        // An error answered by the exception filter sets no result: its body's is ERROR.
        result: api.apiResult ?? (reply.statusCode >= 400 ? 'ERROR' : 'none'),
      },
      seconds,
    );
    if (!isProbeOrMetrics(route)) {
      logger.info(
        {
          ...api.logContext,
          method: request.method,
          route,
          operation: api.apiOperation,
          status: reply.statusCode,
          result: api.apiResult,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          ...(clientGone ? { clientGone } : {}),
        },
        'request',
      );
    }
  }
}

/**
 * What every answer of the edge carries (docs/decisions/http-security-headers.md). API answers
 * hold card data masked, session ids, tokens and order details: no shared cache or proxy may
 * keep them (`no-store`), no browser may read a JSON body as HTML or script (`nosniff`, a CSP
 * that allows nothing), and nothing the edge answers may be framed. With TLS at the edge itself,
 * HSTS: a browser that once reached the payer pages over HTTPS never tries plain HTTP again
 * (where a redirect token could be read or a page rewritten). Behind an ingress that terminates
 * TLS, the ingress sets it. No Access-Control-Allow-* header is ever sent: the API is for
 * merchants' servers, and a browser on another origin must not be able to call it.
 */
function securityHeaders(servesTls: boolean): [string, string][] {
  return [
    ['Cache-Control', 'no-store'],
    ['X-Content-Type-Options', 'nosniff'],
    ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'no-referrer'],
    ...(servesTls ? [['Strict-Transport-Security', 'max-age=31536000'] as [string, string]] : []),
  ];
}

function isProbeOrMetrics(route: string): boolean {
  return route.startsWith('/health') || route === '/metrics';
}

/** The codings a coding header lists beyond `plain` (which reads the bytes as they are), if any. */
function codingsOf(header: string | undefined, plain: string): string | undefined {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding.toLowerCase() !== plain);
  return codings.length > 0 ? codings.join(', ') : undefined;
}
