import type { INestApplicationContext } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import {
  PATTERN_HANDLER_METADATA,
  PATTERN_METADATA,
  TRANSPORT_METADATA,
} from '@nestjs/microservices/constants';
import { PatternHandler } from '@nestjs/microservices/enums/pattern-handler.enum';
import { RpcParamtype } from '@nestjs/microservices/enums/rpc-paramtype.enum';
import { AllExceptionsFilter } from '../errors';
import type { AppLogger } from '../logging';
import { Metrics } from '../metrics';
import { APP_LOGGER } from '../tokens';
import type { GatewayNatsServer } from './gateway-nats.server';
import { RequestContextInterceptor } from './request-context.interceptor';

/**
 * Has `server` call the app's directMessageHandlers itself, under the platform's interceptor and
 * exception filter as Nest's pipeline runs them (PlatformModule), built from the app's Metrics
 * and logger. After `app.init()`, before the server listens: the services' bootstrap, and the
 * spec and micro-benchmark that compare this path with Nest's.
 */
export function dispatchAppDirectly(app: INestApplicationContext, server: GatewayNatsServer): void {
  server.dispatchDirectly({
    handlers: directMessageHandlers(app),
    interceptor: new RequestContextInterceptor(app.get(Metrics)),
    filter: new AllExceptionsFilter(app.get<AppLogger>(APP_LOGGER)),
  });
}

/** A controller's message handler, called with the message's data. */
export type DirectHandler = (data: unknown) => unknown;

const ENHANCERS = [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA];

/**
 * The app's `@MessagePattern` handlers that GatewayNatsServer may call itself, by subject:
 * those whose whole Nest pipeline is the platform's global interceptor and exception filter
 * (PlatformModule), which the direct dispatch applies in its place. A handler with enhancers of
 * its own or of its controller, or with any parameter but a plain `@Payload()` first, is left
 * to Nest's pipeline, as are event handlers and a handler bound to one transport.
 */
export function directMessageHandlers(app: INestApplicationContext): Map<string, DirectHandler> {
  const handlers = new Map<string, DirectHandler>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!controller || !instance || !wrapper.isDependencyTreeStatic() || hasEnhancers(controller)) {
        continue;
      }
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const method = (controller.prototype as Record<string, unknown>)[key];
        if (
          key === 'constructor' ||
          typeof method !== 'function' ||
          !callableDirectly(controller, key, method)
        ) {
          continue;
        }
        const patterns: unknown[] = Reflect.getMetadata(PATTERN_METADATA, method);
        for (const pattern of patterns) {
          if (typeof pattern === 'string') {
            handlers.set(pattern, (data) => method.call(instance, data));
          }
        }
      }
    }
  }
  return handlers;
}

function callableDirectly(controller: object, key: string, method: object): boolean {
  if (
    Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) !== PatternHandler.MESSAGE ||
    Reflect.getMetadata(TRANSPORT_METADATA, method) !== undefined
  ) {
    return false;
  }
  if (hasEnhancers(method)) {
    return false;
  }
  const args = Object.entries(
    (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) ?? {}) as Record<string, ParamMetadata>,
  );
  if (args.length === 0) {
    return true;
  }
  const [[position, { data, pipes }]] = args;
  return (
    args.length === 1 &&
    position === `${RpcParamtype.PAYLOAD}:0` &&
    data === undefined &&
    (pipes ?? []).length === 0
  );
}

interface ParamMetadata {
  data?: unknown;
  pipes?: unknown[];
}

function hasEnhancers(target: object): boolean {
  return ENHANCERS.some(
    (key) => ((Reflect.getMetadata(key, target) as unknown[] | undefined) ?? []).length > 0,
  );
}
