import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { HEALTH_OPTIONS } from './health.tokens';
import { ReadinessChecks } from './readiness-checks';

export interface HealthOptions {
  checkTimeoutMs: number;
}

@Controller('health')
export class HealthController {
  private shuttingDown = false;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly checks: ReadinessChecks,
    @Inject(HEALTH_OPTIONS) private readonly options: HealthOptions,
  ) {}

  /** The process is up and its event loop turns. Restarting it would not help otherwise. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** Every dependency answers within the timeout, and the process is not shutting down. */
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
            this.indicators
              .check(name)
              .attempt(async ({ signal }) => {
                await probe(signal);
              })
              .withTimeout(this.options.checkTimeoutMs),
      ),
    ]);
  }

  /** Called first on SIGTERM so load balancers stop sending before connections close. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }
}
