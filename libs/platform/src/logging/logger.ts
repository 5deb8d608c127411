import pino, { DestinationStream, Logger } from 'pino';
import { currentRequestContext } from './request-context';
import { scrub, scrubString } from './scrub';

export type AppLogger = Logger;

export interface LoggerOptions {
  service: string;
  level: string;
  /** Where lines go; stdout (fd 1) by default. Tests pass a stream to inspect lines. */
  destination?: DestinationStream;
}

/**
 * JSON logs (one object per line) with the service name, and the request id, merchant and
 * merchant correlation id of the request being served, on every line.
 */
export function createLogger(options: LoggerOptions): AppLogger {
  const logger = pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      // Errors are rendered (and scrubbed) by the log formatter below, not by pino's serializer.
      serializers: { err: (err: unknown) => err },
      formatters: {
        level: (label) => ({ level: label }),
        // The bindings: `base`, and what setBindings adds to this logger.
        bindings: scrubbedBindings,
        log: (object) => scrub(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          return method.apply(this, scrubbedArguments(args) as typeof args);
        },
      },
      mixin: () => {
        const context = currentRequestContext();
        return context ? { ...context } : {};
      },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
  // pino gives every child the identity as its bindings formatter unless the child's options name
  // one (lib/proto.js child()), so `logger.child({ card })` would be written as given: every child,
  // a child's child included (it inherits this method), gets the scrub after the caller's own.
  const child = logger.child;
  logger.child = function (this: AppLogger, bindings, childOptions) {
    const own = childOptions?.formatters?.bindings;
    return child.call(this, bindings, {
      ...childOptions,
      formatters: { ...childOptions?.formatters, bindings: (given) => scrubbedBindings(own ? own(given) : given) },
    });
  } as typeof child;
  return logger;
}

/** A logger's bindings as they are written once, at the start of each of its lines: scrubbed. */
function scrubbedBindings(bindings: object): Record<string, unknown> {
  return scrub(bindings) as Record<string, unknown>;
}

/**
 * A log call's arguments as pino reads them, the message scrubbed as the object is by the
 * formatter: the message (the first argument when a string, else the second), the values pino
 * formats into it (`%s`, `%o`...: written as they are), and, when the call gives no message, the
 * error's message pino takes instead (`logger.error(err)`, `logger.warn({ err })`: it is written
 * as the line's `msg` whatever the formatter does with the error).
 */
function scrubbedArguments(args: unknown[]): unknown[] {
  const at = typeof args[0] === 'string' ? 0 : 1;
  if (typeof args[at] === 'string') {
    return args.map((arg, i) => (i < at ? arg : i === at ? scrubString(arg as string) : formatted(arg)));
  }
  if (args.length === 1 && args[0] !== null && typeof args[0] === 'object') {
    const message = errorMessageOf(args[0] as Record<string, unknown>);
    if (message !== undefined) {
      return [args[0], scrubString(message)];
    }
  }
  return args;
}

/** A value pino formats into the message, scrubbed; an error as `%s` shows it (its name and message), not as an object. */
function formatted(value: unknown): unknown {
  return value instanceof Error ? scrubString(String(value)) : scrub(value);
}

/** The message pino gives a line logged without one: the error's, when it logs an error. */
function errorMessageOf(object: Record<string, unknown>): string | undefined {
  const error = object instanceof Error ? object : object.msg === undefined ? object.err : undefined;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}
