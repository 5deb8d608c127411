import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { AppLogger } from '../logging';
import { APP_LOGGER } from '../tokens';
import { HEALTH_OPTIONS } from './health.tokens';
import { ReadinessChecks, ReadinessProbe } from './readiness-checks';

export interface HealthOptions {
  checkTimeoutMs: number;
}

/** What a failed check's body says: its name is enough to know where to look, its error is logged. */
const NOT_ANSWERING = 'not answering';

@Controller('health')
export class HealthController {
  private shuttingDown = false;
  /** The error each failing check last logged, so a probe every few seconds logs a change, not every failure. */
  private readonly failing = new Map<string, string>();

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly checks: ReadinessChecks,
    @Inject(HEALTH_OPTIONS) private readonly options: HealthOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** The process is up and its event loop turns. Restarting it would not help otherwise. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /**
   * Every dependency answers within the timeout, and the process is not shutting down. The body
   * names a failing check but not its error: it is served without authentication (on the public
   * port in the standalone profile), and a driver's error names hosts, ports and database roles.
   * The error goes to the log instead, once per change.
   */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () =>
        this.shuttingDown
          ? this.indicators.check('process').down({ message: 'shutting down' })
          : this.indicators.check('process').up(),
      ...this.checks.entries().map(
        ([name, probe]) =>
          () =>
            // The timeout is ours, not terminus's `withTimeout` (see `probe`).
            this.indicators.check(name).attempt(({ signal }) => this.probe(name, probe, signal)),
      ),
    ]);
  }

  /** Called first on SIGTERM so load balancers stop sending before connections close. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  private async probe(name: string, probe: ReadinessProbe, signal: AbortSignal): Promise<void> {
    // A probe that hangs is answered down at the timeout, and logged. What it ends with later is
    // not: the check was answered down, and a database that drops packets would otherwise
    // alternate the timeout and the driver's late error, two lines every probe.
    let timedOut = false;
    try {
      await withinTimeout(probe(signal), this.options.checkTimeoutMs, () => {
        timedOut = true;
        this.noteFailing(name, `no answer within ${this.options.checkTimeoutMs} ms`);
      });
    } catch (err) {
      if (timedOut) {
        throw new Error(`timeout of ${this.options.checkTimeoutMs}ms exceeded`);
      }
      this.noteFailing(name, err instanceof Error ? `${err.name}: ${err.message}` : String(err), err);
      throw new Error(NOT_ANSWERING);
    }
    if (this.failing.delete(name)) {
      this.logger.info({ check: name }, 'readiness check passing again');
    }
  }

  private noteFailing(name: string, error: string, err?: unknown): void {
    if (this.failing.get(name) !== error) {
      this.failing.set(name, error);
      this.logger.warn({ check: name, ...(err === undefined ? { reason: error } : { err }) }, 'readiness check failing');
    }
  }
}

/**
 * `work`, or a rejection once `ms` have passed without its answer. A timer is due when the event
 * loop comes out of a stall (a long synchronous task) longer than `ms`, and Node runs due timers
 * before it reads the I/O that arrived meanwhile: a ping answered in time would count as timed
 * out, and a busy replica turn unready. So when the timer fires, the answer gets one more turn of
 * the loop (setImmediate runs after the poll phase has read what arrived) before the timeout counts.
 */
function withinTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (!settled) {
          settled = true;
          onTimeout();
          reject(new Error(`no answer within ${ms} ms`));
        }
      });
    }, ms);
    const settle = (answer: () => void) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        answer();
      }
    };
    work.then(
      (value) => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
