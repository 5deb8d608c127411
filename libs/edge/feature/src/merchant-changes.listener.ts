import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MERCHANT_CHANGES_ALL, MERCHANT_CHANGES_CHANNEL } from '@gateway/edge/data-access';
import { MerchantDirectory } from '@gateway/edge/domain';
import { APP_LOGGER, AppLogger, DatabaseConnection, DatabaseListener, Metrics, sessionClientConfig } from '@gateway/platform';
import type { Gauge } from 'prom-client';

/** The edge's database connection (DATABASE_URL and its settings), for the listener's own session. */
export const MERCHANT_CHANGES_CONNECTION = Symbol('MERCHANT_CHANGES_CONNECTION');

/**
 * Drops a merchant's cached profile as soon as the database notifies a change of it (the
 * triggers on edge.merchants; a TRUNCATE drops every profile), so a disabled merchant, a revoked
 * password or certificate, a mode or setting change applies on every replica at once, whoever
 * wrote it (docs/decisions/merchant-cache-invalidation.md). Each (re)connection drops the whole
 * cache: changes made while no LISTEN was in effect were never notified. While the connection is
 * away the cache's TTL bounds staleness, as it did before; readiness does not depend on it.
 * Nothing of this is on the request path: a request still costs no query when its profile is cached.
 */
@Injectable()
export class MerchantChangesListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly listener: DatabaseListener;
  private readonly listening: Gauge<string>;
  /** Whether the last news was a loss already reported: a failed attempt after it is not news. */
  private lossReported = false;
  private listenedBefore = false;

  constructor(
    private readonly directory: MerchantDirectory,
    @Inject(MERCHANT_CHANGES_CONNECTION) connection: DatabaseConnection,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.listening = metrics.gauge(
      'gateway_edge_merchant_changes_listening',
      "1 while the edge listens for merchant changes (a change drops that merchant's cached profile at once); 0 while not, when changes apply within MERCHANT_CACHE_TTL_MS.",
    );
    this.listening.set(0);
    this.listener = new DatabaseListener(
      sessionClientConfig(connection, `${connection.applicationName}:merchant-changes`),
      { channel: MERCHANT_CHANGES_CHANNEL },
      {
        listening: (backendPid) => this.onListening(backendPid),
        notified: (payload) => this.onChanged(payload),
        lost: (err) => this.onLost(err),
      },
    );
  }

  /** The first attempt before the edge serves (the database just answered the migrations); a failure is retried meanwhile. */
  onApplicationBootstrap(): Promise<void> {
    return this.listener.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.listener.stop();
  }

  /** A merchant's id, or MERCHANT_CHANGES_ALL after a TRUNCATE of them all. */
  private onChanged(payload: string): void {
    if (payload === MERCHANT_CHANGES_ALL) {
      this.directory.forgetAll();
    } else {
      this.directory.forget(payload);
    }
  }

  private onListening(backendPid: number): void {
    this.directory.forgetAll();
    this.listening.set(1);
    this.lossReported = false;
    this.logger.info(
      { backendPid },
      this.listenedBefore ? 'listening for merchant changes again; every cached merchant profile dropped' : 'listening for merchant changes',
    );
    this.listenedBefore = true;
  }

  private onLost(err: Error): void {
    this.listening.set(0);
    if (this.lossReported) {
      this.logger.debug({ err }, 'merchant changes listener still without its database connection');
      return;
    }
    this.lossReported = true;
    this.logger.warn(
      { err },
      'not listening for merchant changes (database connection lost or refused): until it is back, a merchant change reaches this replica within MERCHANT_CACHE_TTL_MS',
    );
  }
}
