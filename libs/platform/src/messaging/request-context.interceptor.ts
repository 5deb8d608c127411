import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { GatewayError } from '@gateway/contracts';
import { Observable } from 'rxjs';
import { isDatabaseUnavailable } from '../database/database-unavailable';
import { runWithRequestContext } from '../logging';
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
    const data = context.switchToRpc().getData<WithEnvelope>();
    const requestId =
      typeof data?.envelope?.requestId === 'string' ? data.envelope.requestId : typeof data?.requestId === 'string' ? data.requestId : undefined;
    const merchantId = typeof data?.envelope?.merchant?.id === 'string' ? data.envelope.merchant.id : undefined;
    return new Observable((subscriber) => {
      const started = process.hrtime.bigint();
      const observe = (outcome: HandlerOutcome) =>
        this.metrics.messagesHandled.observe({ subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
      const handle = () =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (err: unknown) => {
            observe(handlerOutcome(err));
            if (err instanceof PastDeadlineError) {
              // Counted, not logged: under overload they come by the thousand.
              this.metrics.messagesPastDeadline.inc({ subject });
            }
            subscriber.error(err);
          },
          complete: () => {
            observe('ok');
            subscriber.complete();
          },
        });
      return requestId ? runWithRequestContext({ requestId, merchantId }, handle) : handle();
    });
  }
}

function patternOf(context: ExecutionContext): string {
  const patterns: unknown = Reflect.getMetadata(PATTERN_METADATA, context.getHandler());
  const pattern = Array.isArray(patterns) ? patterns[0] : patterns;
  return typeof pattern === 'string' ? pattern : 'unknown';
}
