import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a connection pool reports (pg's Pool has exactly these counters). */
export interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export interface DatabasePool {
  schema: string;
  maxConnections: number;
  /** Read at scrape time: the pool object can change when TypeORM reconnects. */
  stats(): PoolStats | undefined;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The edge's requests run longer than a service's handler: with the defaults a payer's step may
 * take 22 s (PAYER_LOCK_WAIT_MS, then two requests of NATS_REQUEST_TIMEOUT_MS each), and the time
 * is counted from the request's headers, so a slow client's body adds up to HTTP_REQUEST_TIMEOUT_MS
 * (30 s). Buckets ending at 10 s counted those only in +Inf, where histogram_quantile reads them as
 * 10 s. Three more, up to 60 s, cover the longest request the edge lets run with its defaults
 * (k8s-manifests.spec.ts holds it for the deployed settings) at three more series per label set.
 */
export const HTTP_LATENCY_BUCKETS = [...LATENCY_BUCKETS, 20, 30, 60];

/**
 * The process's Prometheus metrics, on a registry of its own (so several apps in one
 * process, as in tests and the standalone profile, do not collide).
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP requests at the edge by route, API operation, status and result.',
    labelNames: ['route', 'operation', 'status', 'result'] as const,
    buckets: HTTP_LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly natsRequestDuration = new Histogram({
    name: 'gateway_nats_request_duration_seconds',
    help: 'Request/reply over the message transport by subject and outcome.',
    labelNames: ['subject', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /**
   * Past 10 s, the longest ORDER_LOCK_WAIT_MS and PAYER_LOCK_WAIT_MS accept (a wait that timed out
   * lasts a little more than its setting, hence 20): a payer's step waits 2 s by default, and
   * buckets ending at 1 s read all its longer waits, and its timeouts, as "more than 1 s".
   */
  readonly lockWait = new Histogram({
    name: 'gateway_order_lock_wait_seconds',
    help: 'Time spent waiting for a per-order lock, by outcome (acquired or timeout).',
    labelNames: ['outcome'] as const,
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [this.registry],
  });

  readonly lockFailures = new Counter({
    name: 'gateway_order_lock_failures_total',
    help: 'Order operations answered LOCK_FAILURE because another operation held the order.',
    registers: [this.registry],
  });

  readonly messagesHandled = new Histogram({
    name: 'gateway_message_handler_duration_seconds',
    help: 'Time services spend handling a request, by subject and outcome.',
    labelNames: ['subject', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /**
   * Requests a service refused unprocessed because its in-flight cap was reached (load shedding,
   * docs/decisions/load-shedding.md): the requester answered SERVER_BUSY, nothing was recorded.
   */
  readonly messagesShed = new Counter({
    name: 'gateway_messages_shed_total',
    help: 'Requests refused without being acted on because the service had NATS_MAX_IN_FLIGHT handlers running, by subject.',
    labelNames: ['subject'] as const,
    registers: [this.registry],
  });

  /**
   * Operations a service refused unprocessed because their requester had stopped waiting before
   * the service began them (their deadline had passed; docs/decisions/operation-deadline.md).
   */
  readonly messagesPastDeadline = new Counter({
    name: 'gateway_messages_past_deadline_total',
    help: 'Operations refused without being acted on because their deadline (when the edge stopped waiting) had passed before they began, by subject.',
    labelNames: ['subject'] as const,
    registers: [this.registry],
  });

  private readonly pools: DatabasePool[] = [];

  /**
   * Database pools, read when Prometheus scrapes (no timer, no per-query cost): busy and idle
   * connections against the pool's size, and queries waiting for a connection, the first
   * sign that DATABASE_POOL_SIZE or the database is the bottleneck.
   */
  readonly dbPoolConnections = new Gauge({
    name: 'gateway_db_pool_connections',
    help: 'Connections of the service database pool by state (busy, idle) and the pool size (max).',
    labelNames: ['schema', 'state'] as const,
    registers: [this.registry],
    collect: () => {
      for (const pool of this.pools) {
        const stats = pool.stats();
        const total = stats?.totalCount ?? 0;
        const idle = stats?.idleCount ?? 0;
        this.dbPoolConnections.set({ schema: pool.schema, state: 'busy' }, total - idle);
        this.dbPoolConnections.set({ schema: pool.schema, state: 'idle' }, idle);
        this.dbPoolConnections.set({ schema: pool.schema, state: 'max' }, pool.maxConnections);
      }
    },
  });

  readonly dbPoolWaiting = new Gauge({
    name: 'gateway_db_pool_waiting_queries',
    help: 'Queries waiting for a free connection of the service database pool.',
    labelNames: ['schema'] as const,
    registers: [this.registry],
    collect: () => {
      for (const pool of this.pools) {
        this.dbPoolWaiting.set({ schema: pool.schema }, pool.stats()?.waitingCount ?? 0);
      }
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  registerDatabasePool(pool: DatabasePool): void {
    this.pools.push(pool);
  }

  /**
   * An unlabelled gauge whose value `read` gives when Prometheus scrapes: for a figure kept
   * anyway (requests in flight), so the request path pays nothing to publish it. Registered once.
   */
  sampledGauge(name: string, help: string, read: () => number): void {
    if (this.registry.getSingleMetric(name)) {
      return;
    }
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** A gauge owned by a feature (outbox depth, pool size...), registered once. */
  gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) {
      return existing as Gauge<string>;
    }
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  /**
   * `zeroes`: the label values a rare event is counted under, exported as 0 from the start. A
   * series that first appears at 1 has no earlier sample, so `increase()` and `rate()` read
   * nothing for its first event: an alert on a counter that moves once in a process's life
   * would never fire.
   */
  counter(name: string, help: string, labelNames: string[] = [], zeroes: Record<string, string>[] = []): Counter<string> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) {
      return existing as Counter<string>;
    }
    const counter = new Counter({ name, help, labelNames, registers: [this.registry] });
    for (const labels of zeroes) {
      counter.inc(labels, 0);
    }
    return counter;
  }
}
