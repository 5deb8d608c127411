import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { GatewayError } from '@gateway/contracts';
import { Observable } from 'rxjs';
import { isDatabaseUnavailable } from '../database/database-unavailable';
import { RequestContext, runWithRequestContext } from '../logging';
import { Metrics } from '../metrics';
import { PastDeadlineError } from './operation-deadline';

interface WithEnvelope {
  envelope?: { requestId?: unknown; merchant?: { id?: unknown } };
  /** Messages without an envelope (the payer's pages, the expired payment sweep) carry the request id alone. */
  requestId?: unknown;
}

/**
 * How a handler ended: answered, refused with a coded (merchant-facing) error, answered
 * SERVER_BUSY because what it needs is away (its database, another service), or failed.
 */
export type HandlerOutcome = 'ok' | 'rejected' | 'unavailable' | 'failed';

/**
 * `failed` is every answer of SERVER_FAILED, a coded one too: a handler passing on another
 * service's SERVER_FAILED (or its own bus's, for an unexpected reply) failed as much as one
 * that threw, and GatewayHandlerFailures watches this outcome. `unavailable` is every
 * SERVER_BUSY, the database's errors that are answered so included (AllExceptionsFilter): an
 * outage has its own alerts and readiness, and no support code for on-call to look for.
 */
export function handlerOutcome(err: unknown): HandlerOutcome {
  const coded = err instanceof GatewayError ? err : GatewayError.isWire(err) ? GatewayError.fromWire(err) : null;
  if (coded) {
    return coded.code === 'SERVER_FAILED' ? 'failed' : coded.code === 'SERVER_BUSY' ? 'unavailable' : 'rejected';
  }
  return isDatabaseUnavailable(err) ? 'unavailable' : 'failed';
}

/**
 * Service side, around every message handler: log lines written while handling carry the
 * edge's request id, and the handling time is observed by subject (the pattern as declared,
 * without the deployment's subject prefix, so dashboards work for every deployment), as are the
 * operations refused past their deadline.
 */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  constructor(private readonly metrics: Metrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') {
      return next.handle();
    }
    const subject = patternOf(context);
    const requestContext = requestContextOf(context.switchToRpc().getData());
    return new Observable((subscriber) => {
      const started = process.hrtime.bigint();
      const handle = () =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (err: unknown) => {
            this.observeFailure(subject, started, err);
            subscriber.error(err);
          },
          complete: () => {
            this.observe(subject, started, 'ok');
            subscriber.complete();
          },
        });
      return requestContext ? runWithRequestContext(requestContext, handle) : handle();
    });
  }

  /**
   * The same around a handler the message server calls itself, without Nest's pipeline
   * (GatewayNatsServer's direct dispatch): `handle` is observed and runs in the request's
   * context, and so does `settle`, which turns its outcome into the reply where Nest's exception
   * filter would (inside the context: the filter logs a failure under the request's id).
   */
  async handleDirectly<R>(subject: string, data: unknown, handle: () => unknown, settle: (outcome: DirectOutcome) => R): Promise<R> {
    const run = async (): Promise<R> => {
      const started = process.hrtime.bigint();
      let response: unknown;
      try {
        response = await handle();
      } catch (err) {
        this.observeFailure(subject, started, err);
        return settle({ failed: true, err });
      }
      this.observe(subject, started, 'ok');
      return settle({ failed: false, response });
    };
    const requestContext = requestContextOf(data);
    return requestContext ? runWithRequestContext(requestContext, run) : run();
  }

  private observe(subject: string, started: bigint, outcome: HandlerOutcome): void {
    this.metrics.messagesHandled.observe({ subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
  }

  private observeFailure(subject: string, started: bigint, err: unknown): void {
    this.observe(subject, started, handlerOutcome(err));
    if (err instanceof PastDeadlineError) {
      // Counted, not logged: under overload they come by the thousand.
      this.metrics.messagesPastDeadline.inc({ subject });
    }
  }
}

/** A handler's result, or what it threw. */
export type DirectOutcome = { failed: false; response: unknown } | { failed: true; err: unknown };

function requestContextOf(message: unknown): RequestContext | undefined {
  const data = message as WithEnvelope | null | undefined;
  const requestId =
    typeof data?.envelope?.requestId === 'string' ? data.envelope.requestId : typeof data?.requestId === 'string' ? data.requestId : undefined;
  if (requestId === undefined) {
    return undefined;
  }
  const merchantId = typeof data?.envelope?.merchant?.id === 'string' ? data.envelope.merchant.id : undefined;
  return { requestId, merchantId };
}

function patternOf(context: ExecutionContext): string {
  const patterns: unknown = Reflect.getMetadata(PATTERN_METADATA, context.getHandler());
  const pattern = Array.isArray(patterns) ? patterns[0] : patterns;
  return typeof pattern === 'string' ? pattern : 'unknown';
}
