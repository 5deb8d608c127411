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
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      // Errors are rendered (and scrubbed) by the log formatter below, not by pino's serializer.
      serializers: { err: (err: unknown) => err },
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrub(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          if (typeof args[0] === 'string') {
            args[0] = scrubString(args[0]);
          } else if (typeof args[1] === 'string') {
            args[1] = scrubString(args[1]);
          }
          return method.apply(this, args);
        },
      },
      mixin: () => {
        const context = currentRequestContext();
        return context ? { ...context } : {};
      },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
