import { X509Certificate } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import { Inject, Injectable } from '@nestjs/common';
import { ClientCertificate, ClientCertificateAuthority } from '@gateway/edge/domain';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { FastifyRequest } from 'fastify';
import { TrustedProxies } from './trusted-proxies';

export const CLIENT_CERTIFICATE_SOURCES = Symbol('CLIENT_CERTIFICATE_SOURCES');

export interface ClientCertificateSources {
  /** Null: certificate authentication is off (no TLS_CLIENT_CA_FILE). */
  authority: ClientCertificateAuthority | null;
  /** The trusted proxy's certificate header (lower case), or '' for none. */
  header: string;
  proxies: TrustedProxies;
}

type Presented = ClientCertificate | 'UNREADABLE' | undefined;

/** Distinct header values remembered; a proxy forwards a handful of merchants' certificates. */
const HEADER_CACHE_SIZE = 1_000;
const PEM = /^-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*$/;

/**
 * The client certificate a request presents:
 * - from a trusted proxy (the TCP peer is in TRUSTED_PROXIES): only its header counts; the
 *   connection's own certificate, if any, is the proxy's;
 * - from anyone else: only the TLS connection's certificate counts; the header is ignored (and
 *   logged: someone may be trying to pass as the ingress).
 * Reading and chaining a certificate is done once per connection or per header value, not per
 * request.
 */
@Injectable()
export class ClientCertificateReader {
  private readonly bySocket = new WeakMap<TLSSocket, Presented>();
  private readonly byHeader = new Map<string, Presented>();
  private warnedAt = 0;

  constructor(
    @Inject(CLIENT_CERTIFICATE_SOURCES) private readonly sources: ClientCertificateSources,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  read(request: FastifyRequest): Presented {
    const authority = this.sources.authority;
    if (!authority) {
      return undefined;
    }
    const header = this.sources.header ? request.headers[this.sources.header] : undefined;
    if (this.sources.proxies.includes(request.socket.remoteAddress)) {
      // Twice the header is ambiguous: which one did the proxy set?
      return Array.isArray(header) ? 'UNREADABLE' : header ? this.fromHeader(authority, header) : undefined;
    }
    if (header !== undefined) {
      this.warnUntrustedHeader(request.socket.remoteAddress);
    }
    const socket = request.raw.socket;
    return socket instanceof TLSSocket ? this.fromSocket(authority, socket) : undefined;
  }

  /** At most once a minute: a client repeating it must not flood the logs. */
  private warnUntrustedHeader(peer: string | undefined): void {
    const now = Date.now();
    if (now - this.warnedAt > 60_000) {
      this.warnedAt = now;
      this.logger.warn({ peer, header: this.sources.header }, 'client certificate header from an untrusted address ignored');
    }
  }

  private fromSocket(authority: ClientCertificateAuthority, socket: TLSSocket): Presented {
    if (this.bySocket.has(socket)) {
      return this.bySocket.get(socket);
    }
    const certificate = socket.getPeerX509Certificate();
    const presented = certificate ? authority.read(certificate, 'TLS') : undefined;
    this.bySocket.set(socket, presented);
    return presented;
  }

  private fromHeader(authority: ClientCertificateAuthority, header: string): Presented {
    const cached = this.byHeader.get(header);
    if (cached !== undefined) {
      return cached;
    }
    const presented = readHeaderCertificate(authority, header);
    if (this.byHeader.size >= HEADER_CACHE_SIZE) {
      this.byHeader.clear();
    }
    this.byHeader.set(header, presented);
    return presented;
  }
}

/** ingress-nginx's `ssl-client-cert`: the PEM, URL-encoded. */
function readHeaderCertificate(authority: ClientCertificateAuthority, header: string): ClientCertificate | 'UNREADABLE' {
  try {
    const pem = decodeURIComponent(header);
    return PEM.test(pem) ? authority.read(new X509Certificate(pem), 'HEADER') : 'UNREADABLE';
  } catch {
    return 'UNREADABLE';
  }
}
