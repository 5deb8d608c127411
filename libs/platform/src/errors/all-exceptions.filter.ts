import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { GatewayError, newSupportCode, WireError } from '@gateway/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { Observable, throwError } from 'rxjs';
import { isDatabaseUnavailable } from '../database/database-unavailable';
import { sortKeysDeep } from '../json';
import { AppLogger } from '../logging';
import { APP_LOGGER } from '../tokens';

/** Fastify's own rejections before a handler runs, as the spec's INVALID_REQUEST. */
const FASTIFY_CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  // Every valid media type is read (as JSON); only a header that is no media type at all is refused.
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The Content-Type header is not a valid media type; send application/json.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.',
  FST_ERR_BAD_URL: 'The request path is not valid.',
  FST_ERR_ASYNC_CONSTRAINT: 'The request is not valid.',
};

export const AUTH_REALM = 'gateway';

/**
 * The one exception filter of every app, for both transports. On the message transport coded
 * errors cross the wire as they are. Over HTTP they become the spec's error body. Anything
 * unexpected is logged once, here, under a fresh support code (the log line carries the
 * request id), and answered as SERVER_FAILED with only that code: no stack, no message. The
 * database being unavailable (docs/decisions/database-unavailable-is-server-busy.md) is not
 * unexpected: SERVER_BUSY, as for a service that does not answer.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(@Inject(APP_LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() === 'rpc') {
      return throwError(() => this.toWireError(exception));
    }
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (exception instanceof HttpException && !isApiPath(request.url)) {
      // Health and metrics endpoints answer in their own (terminus) shape.
      void reply.status(exception.getStatus()).send(exception.getResponse());
      return;
    }
    if (isClientGone(exception, request)) {
      // The client closed the connection before sending its whole body: nobody is left to
      // answer, and its ECONNRESET is not the database's.
      this.logger.info({ reason: errorSummary(exception) }, 'request body not received: the client closed the connection');
      sendGatewayError(reply, GatewayError.invalidRequest('The request body was not received in full.'));
      return;
    }
    sendGatewayError(reply, this.toGatewayError(exception));
  }

  /** The error a message handler's failure is answered with (the reply's `err`). */
  toWireError(exception: unknown): WireError {
    return this.toGatewayError(exception).toWire();
  }

  private toGatewayError(exception: unknown): GatewayError {
    if (exception instanceof GatewayError) {
      return exception;
    }
    if (GatewayError.isWire(exception)) {
      return GatewayError.fromWire(exception);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return new GatewayError('UNKNOWN_PATH', { explanation: 'No such resource.' });
      }
      if (status === 405) {
        return new GatewayError('METHOD_NOT_ALLOWED', { explanation: 'This method is not supported here.' });
      }
    }
    const client = fastifyClientError(exception);
    if (client) {
      return client;
    }
    if (isDatabaseUnavailable(exception)) {
      // Overload or an outage, not a fault in our code: the merchant retries, as for a service
      // that does not answer.
      this.logger.warn({ reason: errorSummary(exception) }, 'database unavailable');
      return GatewayError.serverBusy();
    }
    const supportCode = newSupportCode();
    this.logger.error({ supportCode, err: exception }, 'request failed');
    return GatewayError.serverFailed(supportCode);
  }
}

/**
 * Fastify's own rejection of a request (body too large, bad URL...), which Nest hands over
 * wrapped in an HttpException whose cause is the FastifyError.
 */
function fastifyClientError(exception: unknown): GatewayError | null {
  for (let error = exception, depth = 0; error && depth < 2; error = (error as { cause?: unknown }).cause, depth++) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code in FASTIFY_CLIENT_ERRORS) {
      return GatewayError.invalidRequest(FASTIFY_CLIENT_ERRORS[code]);
    }
  }
  return null;
}

/** The exception is the request stream's own error (Node's `aborted`), as Nest may hand it over wrapped. */
function isClientGone(exception: unknown, request: FastifyRequest): boolean {
  const errored = request.raw.errored;
  for (let error = exception, depth = 0; errored && error && depth < 2; error = (error as { cause?: unknown }).cause, depth++) {
    if (error === errored) {
      return true;
    }
  }
  return false;
}

/**
 * What Fastify refuses before routing (a URL that is not valid percent-encoding), answered
 * through its `frameworkErrors` option in the API's error shape, with `headers` (no hook runs on
 * this answer: an app's onSend hook does not add them).
 */
export function answerFrameworkError(
  error: Error & { code?: string },
  _request: FastifyRequest,
  reply: FastifyReply,
  headers: readonly (readonly [string, string])[] = [],
): void {
  for (const [name, value] of headers) {
    void reply.header(name, value);
  }
  sendGatewayError(reply, fastifyClientError(error) ?? GatewayError.invalidRequest('The request is not valid.'));
}

export function sendGatewayError(reply: FastifyReply, error: GatewayError): void {
  if (error.code === 'INVALID_CREDENTIALS') {
    void reply.header('WWW-Authenticate', `Basic realm="${AUTH_REALM}", charset="UTF-8"`);
  }
  if (error.httpStatus === 503) {
    void reply.header('Retry-After', String(error.retryAfterSeconds ?? 1));
  }
  void reply
    .status(error.httpStatus)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(sortKeysDeep(error.toResponseBody())));
}

function isApiPath(url: string): boolean {
  return !url.startsWith('/health') && !url.startsWith('/metrics');
}

/**
 * Node's HTTP parser refused the request before any route could see it: request line and
 * headers over the limit, bytes that are not HTTP (a CR or LF inside a header, a control
 * character in the URL). Answered in the API's error shape with a 400 (or 408 when the client
 * was too slow), with `headers` (written to the socket here: no hook runs), then the connection
 * is closed, as Node does.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex, headers: readonly (readonly [string, string])[] = []): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) {
    return;
  }
  const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const explanation = timedOut
    ? 'The request was not received in time.'
    : err.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request line and headers are too large.'
      : 'The request is not valid HTTP.';
  const body = JSON.stringify(sortKeysDeep(GatewayError.invalidRequest(explanation).toResponseBody()));
  const status = timedOut ? '408 Request Timeout' : '400 Bad Request';
  // Not in the middle of another response on the same connection (Node checks the same).
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answering) {
    // Closed once the answer is flushed: the rest of the stream cannot be trusted to be HTTP.
    socket.end(
      `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`,
      () => socket.destroy(),
    );
  } else {
    socket.destroy();
  }
}

/** The error's code and message, for the log (a connection error's text names no data). */
function errorSummary(exception: unknown): string {
  const { code, message } = (exception ?? {}) as { code?: unknown; message?: unknown };
  return [code, message].filter((part) => typeof part === 'string').join(': ');
}
