import { Injectable } from '@nestjs/common';

export type ReadinessProbe = (signal: AbortSignal) => Promise<unknown>;

/**
 * The dependencies this process needs to serve traffic. Modules add theirs when they start
 * (database, NATS, and at the edge Redis), and `/health/ready` runs them all,
 * each under the configured timeout.
 */
@Injectable()
export class ReadinessChecks {
  private readonly probes = new Map<string, ReadinessProbe>();

  add(name: string, probe: ReadinessProbe): void {
    this.probes.set(name, probe);
  }

  entries(): [string, ReadinessProbe][] {
    return [...this.probes.entries()];
  }
}
