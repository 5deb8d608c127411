import { OnApplicationShutdown } from '@nestjs/common';
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { DeliveryResult, WebhookDelivery, WebhookSender } from '@gateway/order-transaction/domain';
import { guardedLookup, isNonPublicAddress, Resolver } from '@gateway/platform';

export interface HttpsWebhookSenderOptions {
  timeoutMs: number;
  /** PEM of CA certificates trusted besides the system's (explicit test configuration). */
  extraCa?: string;
  resolver?: Resolver;
  /** IDLE_SOCKET_TIMEOUT_MS unless given (tests make it short). */
  idleSocketTimeoutMs?: number;
}

const USER_AGENT = 'payment-gateway-webhooks/1';
/**
 * A kept-alive connection to a receiver is closed after this long unused. Without it, a pool keeps
 * the idle connections of every receiver it ever called for as long as the receiver leaves them
 * open (a server with no idle timeout, as Go's by default, never closes them): sockets and TLS
 * state that only grow with the number of receivers over a process's months. Long enough for
 * the next notification of a busy receiver to reuse its connection. An attempt in progress is
 * bounded by the delivery timeout, not by this.
 */
const IDLE_SOCKET_TIMEOUT_MS = 30_000;

/**
 * Delivers notifications over HTTPS only, to public addresses only (unless the delivery allows
 * otherwise): the address is checked on every connection, after DNS, and is the one
 * connected to. Redirects are not followed (a 3xx is a failed attempt), response bodies are
 * discarded unread, and each attempt is bounded as a whole by the timeout.
 */
export class HttpsWebhookSender implements WebhookSender, OnApplicationShutdown {
  // Two pools: a kept-alive socket opened for a test merchant's local receiver must never
  // carry a live merchant's notification to the same host and port.
  private readonly publicOnly: Agent;
  private readonly anyAddress: Agent;

  constructor(private readonly options: HttpsWebhookSenderOptions) {
    const ca = options.extraCa ? [...rootCertificates, options.extraCa] : undefined;
    const agent = (allowNonPublic: boolean) =>
      new Agent({
        keepAlive: true,
        maxSockets: 16,
        timeout: options.idleSocketTimeoutMs ?? IDLE_SOCKET_TIMEOUT_MS,
        ca,
        lookup: guardedLookup({ allowNonPublic, resolver: options.resolver }),
      });
    this.publicOnly = agent(false);
    this.anyAddress = agent(true);
  }

  async send(delivery: WebhookDelivery): Promise<DeliveryResult> {
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      return { delivered: false, result: 'REFUSED_INVALID_URL' };
    }
    if (url.protocol !== 'https:') {
      return { delivered: false, result: 'REFUSED_NOT_HTTPS' };
    }
    // An IP literal is connected to without a lookup, so it is checked here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!delivery.allowNonPublic && isIP(host) !== 0 && isNonPublicAddress(host)) {
      return { delivered: false, result: 'REFUSED_NON_PUBLIC_ADDRESS' };
    }
    return new Promise<DeliveryResult>((resolve) => {
      const outgoing = request(
        url,
        {
          method: 'POST',
          agent: delivery.allowNonPublic ? this.anyAddress : this.publicOnly,
          headers: {
            ...delivery.headers,
            'Content-Type': 'application/json; charset=utf-8',
            'Content-Length': String(Buffer.byteLength(delivery.body)),
            'User-Agent': USER_AGENT,
          },
          signal: AbortSignal.timeout(this.options.timeoutMs),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          response.resume();
          response.on('end', () => resolve({ delivered: status >= 200 && status < 300, result: `HTTP ${status}` }));
          response.on('error', (err) => resolve({ delivered: false, result: failureOf(err) }));
        },
      );
      outgoing.on('error', (err) => resolve({ delivered: false, result: failureOf(err) }));
      outgoing.end(delivery.body);
    });
  }

  onApplicationShutdown(): void {
    this.publicOnly.destroy();
    this.anyAddress.destroy();
  }
}

function failureOf(err: Error & { code?: string }): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') {
    return 'TIMEOUT';
  }
  if (err.code === 'ENONPUBLIC') {
    return 'REFUSED_NON_PUBLIC_ADDRESS';
  }
  return err.code ?? err.name;
}
