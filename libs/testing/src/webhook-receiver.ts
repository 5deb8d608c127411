import { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SelfSignedCertificate } from './tls-certificates';

/** One request as it arrived on the wire. */
export interface ReceivedNotification {
  id: string;
  attempt: number;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

/** What the receiver answers the next request with. */
export type ReceiverBehaviour = { status: number; delayMs?: number };

/**
 * A merchant's webhook endpoint for tests: HTTPS with a self-signed certificate, recording every
 * request on the wire and keeping a de-duplicating view by notification id (the first
 * delivery of each id that it accepted, as a receiver following docs/webhooks.md would).
 * It can answer errors, answer slowly, or stop listening altogether, and it notes how many
 * deliveries of one notification were ever in progress at the same time.
 */
export class WebhookReceiver {
  readonly wire: ReceivedNotification[] = [];
  /** Accepted notifications by id, in the order first accepted. */
  readonly processed = new Map<string, ReceivedNotification>();
  private readonly inFlight = new Map<string, number>();
  private maxConcurrent = 0;
  private readonly queued: ReceiverBehaviour[] = [];
  private server: Server | null = null;
  private port = 0;

  constructor(
    private readonly certificate: SelfSignedCertificate,
    private readonly normally: ReceiverBehaviour = { status: 200 },
  ) {}

  /** Listens (again, on the same port after a stop). */
  async start(): Promise<void> {
    const server = createServer({ cert: this.certificate.cert, key: this.certificate.key }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
        const received: ReceivedNotification = {
          id: headers['x-notification-id'] ?? '',
          attempt: Number(headers['x-notification-attempt'] ?? 0),
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        this.wire.push(received);
        const behaviour = this.queued.shift() ?? this.normally;
        const concurrent = (this.inFlight.get(received.id) ?? 0) + 1;
        this.inFlight.set(received.id, concurrent);
        this.maxConcurrent = Math.max(this.maxConcurrent, concurrent);
        // A receiver processes first and answers after: a slow answer can make the sender retry
        // a notification that was in fact received (what the de-duplication is for).
        if (behaviour.status >= 200 && behaviour.status < 300 && !this.processed.has(received.id)) {
          this.processed.set(received.id, received);
        }
        setTimeout(() => {
          this.inFlight.set(received.id, (this.inFlight.get(received.id) ?? 1) - 1);
          response.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('ok');
        }, behaviour.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: deliveries fail with connection refused until start() again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** The next requests get these answers, in order; then the normal one again. */
  answerNext(...behaviours: ReceiverBehaviour[]): void {
    this.queued.push(...behaviours);
  }

  url(path = '/hooks'): string {
    return `https://localhost:${this.port}${path}`;
  }

  /** Requests on the wire for one notification id. */
  deliveriesOf(id: string): ReceivedNotification[] {
    return this.wire.filter((r) => r.id === id);
  }

  /** Most deliveries of one notification ever in progress at once (1 = never concurrent). */
  get maxConcurrentDeliveriesOfOneNotification(): number {
    return this.maxConcurrent;
  }
}
