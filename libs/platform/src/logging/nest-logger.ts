import { LoggerService } from '@nestjs/common';
import { AppLogger } from './logger';

/** Nest's own messages (module init, route mapping, shutdown) through the same JSON logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    if (message instanceof Error) {
      this.logger.error({ context, err: message }, message.message);
    } else {
      this.logger.error({ context, trace }, String(message));
    }
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }

  fatal(message: unknown, context?: string): void {
    this.logger.fatal({ context }, String(message));
  }
}
