import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while serving a request carries. */
export interface RequestContext {
  requestId: string;
  merchantId?: string;
  correlationId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * For HTTP hooks that cannot wrap the rest of the request in a callback: the context holds
 * for the remainder of the current asynchronous flow (the request's lifecycle).
 */
export function enterRequestContext(context: RequestContext): void {
  storage.enterWith(context);
}
