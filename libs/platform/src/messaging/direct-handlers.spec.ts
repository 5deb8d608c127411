import {
  ArgumentsHost,
  CallHandler,
  CanActivate,
  Catch,
  Controller,
  ExceptionFilter,
  ExecutionContext,
  Injectable,
  Module,
  NestInterceptor,
  ParseIntPipe,
  Scope,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload, Transport } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { AllExceptionsFilter } from '../errors';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { PlatformModule } from '../platform.module';
import { directMessageHandlers } from './direct-handlers';
import { RequestContextInterceptor } from './request-context.interceptor';

@Injectable()
class PassThrough implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

@Injectable()
class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Catch()
class Rethrow implements ExceptionFilter {
  catch(exception: unknown, _host: ArgumentsHost): never {
    throw exception;
  }
}

@Controller()
class PlainController {
  readonly prefix = 'seen:';

  @MessagePattern('plain.payload.v1')
  payload(@Payload() data: string) {
    return `${this.prefix}${data}`;
  }

  @MessagePattern('plain.nothing.v1')
  nothing() {
    return 'pong';
  }

  @MessagePattern('plain.context.v1')
  withContext(@Payload() data: string, @Ctx() context: unknown) {
    return [data, context];
  }

  @MessagePattern('plain.field.v1')
  field(@Payload('id') id: string) {
    return id;
  }

  @UseInterceptors(PassThrough)
  @MessagePattern('plain.intercepted.v1')
  intercepted(@Payload() data: string) {
    return data;
  }

  @EventPattern('plain.event.v1')
  event(@Payload() data: string) {
    return data;
  }

  @MessagePattern('plain.context-only.v1')
  contextOnly(@Ctx() context: unknown) {
    return context;
  }

  @MessagePattern('plain.piped-payload.v1')
  pipedPayload(@Payload(ParseIntPipe) data: number) {
    return data;
  }

  @MessagePattern('plain.one-transport.v1', Transport.NATS)
  oneTransport(@Payload() data: string) {
    return data;
  }

  @UseGuards(AllowAll)
  @MessagePattern('plain.guarded.v1')
  guarded(@Payload() data: string) {
    return data;
  }

  @UsePipes(ParseIntPipe)
  @MessagePattern('plain.piped.v1')
  piped(@Payload() data: number) {
    return data;
  }

  @UseFilters(Rethrow)
  @MessagePattern('plain.filtered.v1')
  filtered(@Payload() data: string) {
    return data;
  }
}

/** Built per request: Nest's pipeline makes its instance, the one at startup is not the handler's. */
@Controller({ scope: Scope.REQUEST })
class RequestScopedController {
  @MessagePattern('scoped.payload.v1')
  payload(@Payload() data: string) {
    return data;
  }
}

@UseInterceptors(PassThrough)
@Controller()
class InterceptedController {
  @MessagePattern('intercepted.payload.v1')
  payload(@Payload() data: string) {
    return data;
  }
}

@Module({ controllers: [PlainController, InterceptedController, RequestScopedController], providers: [PassThrough, AllowAll, Rethrow] })
class ProbeModule {}

describe('directMessageHandlers', () => {
  it('takes the message handlers whose only pipeline is the global one, bound to their controller', async () => {
    const app = await NestFactory.createApplicationContext(ProbeModule, { logger: false });
    try {
      const handlers = directMessageHandlers(app);

      // Left to Nest: an event, a handler with enhancers of its own (interceptor, guard, pipes, filter) or of
      // its controller, a parameter but a plain @Payload() first (a field, a pipe, the context), one
      // transport's handler, a request-scoped controller's.
      expect([...handlers.keys()].sort()).toEqual(['plain.nothing.v1', 'plain.payload.v1']);
      expect(handlers.get('plain.payload.v1')!('x')).toBe('seen:x');
      expect(handlers.get('plain.nothing.v1')!(undefined)).toBe('pong');
    } finally {
      await app.close();
    }
  });

  it('stands in for exactly the global enhancers PlatformModule registers: its exception filter and request interceptor', () => {
    // A new global guard, pipe, interceptor or filter would be skipped by the direct dispatch
    // (GatewayNatsServer): add it to DirectDispatch too, then here.
    const { providers } = PlatformModule.forRoot({
      logger: createLogger({ service: 't', level: 'silent' }),
      metrics: new Metrics(),
      messaging: { profile: 'in-process', serviceName: 't' },
      healthCheckTimeoutMs: 1_000,
    } as never);
    const global = ((providers ?? []) as { provide?: unknown; useClass?: unknown }[]).filter(({ provide }) =>
      [APP_FILTER, APP_INTERCEPTOR, APP_GUARD, APP_PIPE].includes(provide as string),
    );
    expect(global.map(({ provide, useClass }) => [provide, useClass])).toEqual([
      [APP_FILTER, AllExceptionsFilter],
      [APP_INTERCEPTOR, RequestContextInterceptor],
    ]);
  });
});
