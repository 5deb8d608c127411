import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Counter, Gauge } from 'prom-client';
import { AppLogger } from '../logging';
import { Metrics } from '../metrics';
import { APP_LOGGER } from '../tokens';
import { BackgroundJob, BackgroundJobs } from './background-jobs';
import { PeriodicJob } from './periodic-job';

/**
 * One service's part of the payer personal-data retention (docs/decisions/payer-personal-data.md,
 * item 2): strips the personal data of the orders idle past PERSONAL_DATA_RETENTION_DAYS in its
 * own schema, page after page, checking `stopping()` between orders; an order done is not read
 * again by a later run (each service marks it, until its next operation or step). Answers counts only (never data), which the run's log line carries.
 */
export interface RetentionPass {
  run(stopping: () => boolean): Promise<Record<string, number>>;
}

/** How a service's pass reads its orders (the ledger's RetainPayerData, browser-payment's RetainBrowserPaymentPayerData). */
export interface RetentionPassOptions {
  /** PERSONAL_DATA_RETENTION_DAYS in milliseconds (above 0: no pass is built when off). */
  retentionMs: number;
  /** Orders read per page. */
  pageSize: number;
  /** Between two pages, so a large backlog does not keep the database busy in one go. */
  pauseMs: number;
}

/** A pass's options for PERSONAL_DATA_RETENTION_DAYS: pages of 100 orders, 200 ms apart. */
export function retentionPassOptions(retentionDays: number): RetentionPassOptions {
  return { retentionMs: retentionDays * 86_400_000, pageSize: 100, pauseMs: 200 };
}

/**
 * A pass's reading: `read` pages from the first (`after` null, then the page's last row), each
 * row through `each`, pausing `pauseMs` between pages, until a page comes back short or the
 * process stops (checked before each row: the row in progress is finished, no other begun).
 */
export async function forEachRetentionPage<T>(
  read: (after: T | null) => Promise<T[]>,
  each: (row: T) => Promise<void>,
  { pageSize, pauseMs }: Pick<RetentionPassOptions, 'pageSize' | 'pauseMs'>,
  stopping: () => boolean,
): Promise<void> {
  let after: T | null = null;
  for (;;) {
    const page = await read(after);
    for (const row of page) {
      if (stopping()) {
        return;
      }
      await each(row);
      after = row;
    }
    if (page.length < pageSize || stopping()) {
      return;
    }
    await sleep(pauseMs);
  }
}

/**
 * One order through a pass's erasure, its outcome (`erase`'s answer) counted in `report`. An
 * erasure that fails is counted `failed` and logged as `failure` with the order's ids and the
 * error's first line, never the stack or the database's detail (where Postgres may quote values);
 * the next run tries it again. One cut off by the shutdown (the pool closed under it) committed
 * nothing and is not counted.
 */
export async function retainOrder<O extends string>(
  { merchantId, orderId }: { merchantId: string; orderId: string },
  erase: () => Promise<O>,
  report: Record<O | 'failed', number>,
  stopping: () => boolean,
  logger: AppLogger,
  failure: string,
): Promise<void> {
  try {
    report[await erase()] += 1;
  } catch (err) {
    if (stopping()) {
      return;
    }
    report.failed += 1;
    logger.warn({ merchantId, orderId, reason: err instanceof Error ? err.message.split('\n')[0] : String(err) }, failure);
  }
}

/**
 * The order of the passes in a process that runs several: browser-payment's before the ledger's,
 * as the standalone `payer-data erase` runs them on an order.
 */
export const RETENTION_PASS_ORDER = { browserPayment: 1, ledger: 2 } as const;

/** How often a process runs its passes: an hour, each run at a random point of the interval's second half. */
const RETENTION_EVERY_MS = 3_600_000;
/** The first run soon after start (a random point between this and twice it): a process restarted more often than hourly still runs. */
const FIRST_RUN_AFTER_MS = 60_000;

/**
 * The process's payer personal-data retention job: the services' passes registered here (at most
 * one each; the standalone gateway has two) run one after another in RETENTION_PASS_ORDER,
 * hourly with jitter so that replicas started together spread their runs. Replicas may still run
 * at once: each order is stripped in its own transaction on its locked rows, as the erasure on
 * request does, so the second finds it stripped (or, in the ledger, passes it while held) and
 * writes nothing.
 *
 * Stopped with the process's other jobs (BackgroundJobs): the timer ends and the run begins no
 * other order, but the order in progress is not waited for, as the abandoned reservation sweep's
 * step is not: its transaction, cut off by the pool's close once the requests in flight are
 * answered, commits nothing (its mark included), so the next run of any replica does that order
 * again. Waiting would spend the shutdown grace (which counts no
 * retention: order-transaction's ledgerJobsStop) before the requests in flight are drained.
 */
@Injectable()
export class PersonalDataRetention implements OnApplicationBootstrap, BackgroundJob {
  private readonly passes: { name: string; rank: number; pass: RetentionPass }[] = [];
  /** Orders each run's passes did, by pass and outcome (their reports' counts). */
  private readonly orders: Counter<string>;
  /** Each service's PERSONAL_DATA_RETENTION_DAYS, by pass, 0 included (declare). */
  private readonly days: Gauge<string>;
  private readonly job = new PeriodicJob(
    () => this.runPasses(),
    () => RETENTION_EVERY_MS / 2 + Math.random() * (RETENTION_EVERY_MS / 2),
  );
  private stopping = false;

  constructor(
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    jobs: BackgroundJobs,
    metrics: Metrics,
  ) {
    jobs.add('personal data retention', this);
    this.orders = metrics.counter(
      'gateway_personal_data_retention_orders_total',
      'Orders the payer personal-data retention did, by pass (the service) and outcome (the counts of its log line).',
      ['pass', 'outcome'],
    );
    this.days = metrics.gauge(
      'gateway_personal_data_retention_days',
      "PERSONAL_DATA_RETENTION_DAYS of the service whose pass this process would run (0: the retention is off); order-transaction's and browser-payment's must be equal.",
      ['pass'],
    );
  }

  /**
   * A service's setting, declared by its module wherever its pass would run, whatever the value:
   * a service with the retention off then exports 0 rather than nothing, so the alert comparing
   * the services' settings (GatewayPersonalDataRetentionMismatch) sees it. Each service strips its
   * own copy of an order's payer data: with different settings one keeps what the other erased.
   */
  declare(name: string, days: number): void {
    this.days.set({ pass: name }, days);
  }

  /** A service's pass (registered by its module where its setting, declared, is above 0). */
  add(name: string, rank: number, pass: RetentionPass): void {
    this.passes.push({ name, rank, pass });
    this.passes.sort((a, b) => a.rank - b.rank);
    // From 0, so an alert on a first failure sees it (Metrics.counter's zeroes).
    this.orders.inc({ pass: name, outcome: 'failed' }, 0);
  }

  onApplicationBootstrap(): void {
    if (this.passes.length > 0) {
      this.job.start(FIRST_RUN_AFTER_MS + Math.random() * FIRST_RUN_AFTER_MS);
    }
  }

  stop(): void {
    this.stopping = true;
    // Ends the timer at once; the order in progress is not waited for (see above).
    void this.job.stop();
  }

  /** Every pass now (or the run in progress joined): for tests. */
  runNow(): Promise<Record<string, Record<string, number>>> {
    return this.job.runNow();
  }

  private async runPasses(): Promise<Record<string, Record<string, number>>> {
    const reports: Record<string, Record<string, number>> = {};
    for (const { name, pass } of this.passes) {
      if (this.stopping) {
        break;
      }
      try {
        const report = await pass.run(() => this.stopping);
        reports[name] = report;
        for (const [outcome, count] of Object.entries(report)) {
          this.orders.inc({ pass: name, outcome }, count);
        }
        if (Object.values(report).some((n) => n > 0)) {
          this.logger.info({ pass: name, ...report }, "payer's personal data past retention stripped");
        }
      } catch (err) {
        if (this.stopping) {
          // The pool closed under it: not a database failure; nothing of the order in progress was committed.
          this.logger.info({ pass: name, reason: err instanceof Error ? err.message : String(err) }, 'personal data retention run cut off by the shutdown; the next run does the rest');
        } else {
          // Listing the idle orders failed (the database away): the error, no data.
          this.logger.warn({ err, pass: name }, 'personal data retention run failed; the next run does the rest');
        }
      }
    }
    return reports;
  }
}
