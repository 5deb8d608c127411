import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppLogger } from '../logging';
import { APP_LOGGER } from '../tokens';
import { Metrics } from './metrics';

export const METRICS_LISTEN = Symbol('METRICS_LISTEN');

/** Where the metrics server listens (PlatformConfig's HTTP_HOST and METRICS_PORT). */
export interface MetricsListen {
  host: string;
  port: number;
}

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * `/metrics` on a port of its own, and nothing else there: Prometheus is then let in to that port
 * only (a NetworkPolicy can tell ports apart, not paths), and the API's port stays closed to it.
 * It listens once the app has initialised and closes when the app does.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: Server;

  constructor(
    private readonly metrics: Metrics,
    @Inject(METRICS_LISTEN) private readonly listen: MetricsListen,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  async onApplicationBootstrap(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.listen.port, this.listen.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.logger.info({ url: this.url() }, 'metrics served');
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server.listening) {
      return;
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The base URL it listens on (the port chosen when configured as 0). */
  url(): string {
    return metricsUrl(this.listen.host, (this.server.address() as AddressInfo).port);
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    try {
      const body = await this.metrics.registry.metrics();
      response.writeHead(200, { 'content-type': CONTENT_TYPE });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (err) {
      this.logger.error({ err }, 'metrics scrape failed');
      response.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
    }
  }
}

/** The URL of a server bound to `host`: the loopback address for every interface, IPv6 in brackets. */
export function metricsUrl(host: string, port: number): string {
  const reachable = ['0.0.0.0', '::', ''].includes(host) ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
