import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { AppLogger } from '../logging';
import { APP_LOGGER } from '../tokens';

/** Work a process runs besides answering requests (a loop, a timer), as it stops. */
export interface BackgroundJob {
  /**
   * Takes no new work from now on, and resolves once the work in progress is over (at once, for
   * work that is safe to cut off). Called once, at the moment every other job of the process is.
   */
  stop(): Promise<void> | void;
}

/**
 * The background jobs of a process, stopped together: every job registers here (in its
 * constructor) and has no shutdown hook of its own. Nest 12 calls `beforeApplicationShutdown`
 * module by module and, within a module, one dependency depth after another, awaiting each
 * depth before it calls the next: jobs with hooks of their own would begin stopping one after
 * another, a later one still taking new work (a delivery, an inquiry) while an earlier one
 * finishes its own, and the stop would last the sum of their waits. This one hook asks every
 * job to stop at the same moment and waits for them all, so a stop lasts the longest of them,
 * which is what the shutdown grace counts (order-transaction's shutdownGraceNeeded, api-edge's
 * edgeShutdownGraceNeeded, the standalone gateway's standaloneShutdownGraceNeeded).
 */
@Injectable()
export class BackgroundJobs implements BeforeApplicationShutdown {
  private readonly jobs = new Map<BackgroundJob, string>();
  private stopped?: Promise<void>;

  constructor(@Inject(APP_LOGGER) private readonly logger: AppLogger) {}

  /** `job` is stopped with the others when the process stops; `name` is what the logs call it. */
  add(name: string, job: BackgroundJob): void {
    this.jobs.set(job, name);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stopAll();
  }

  /** Every job asked to stop now; resolves once all have. A second call waits for the first's. */
  stopAll(): Promise<void> {
    this.stopped ??= Promise.all(
      [...this.jobs].map(async ([job, name]) => {
        try {
          await job.stop();
        } catch (err) {
          // One job's failure neither hides nor cuts short the others' stops.
          this.logger.error({ err, job: name }, 'background job failed to stop');
        }
      }),
    ).then(() => undefined);
    return this.stopped;
  }
}
