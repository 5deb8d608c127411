import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { runWithRequestContext } from '../logging';

interface WithEnvelope {
  envelope?: { requestId?: unknown; merchant?: { id?: unknown } };
}

/** Service side: log lines written while handling a message carry the edge's request id. */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') {
      return next.handle();
    }
    const data = context.switchToRpc().getData<WithEnvelope>();
    const requestId = typeof data?.envelope?.requestId === 'string' ? data.envelope.requestId : undefined;
    if (!requestId) {
      return next.handle();
    }
    const merchantId = typeof data.envelope?.merchant?.id === 'string' ? data.envelope.merchant.id : undefined;
    return new Observable((subscriber) =>
      runWithRequestContext({ requestId, merchantId }, () => next.handle().subscribe(subscriber)),
    );
  }
}
