import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { messagingOptions, natsTls, NatsTlsFiles } from '../bootstrap/service-main';
import { freePort } from '../test-support';
import { GatewayNatsClient } from './gateway-nats.client';
import type { NatsTls } from './message-bus';
import { createMessageClient } from './transports';

/**
 * NATS_URL with tls://, NATS_TLS_CA_FILE and the client certificate against real nats-servers
 * started here on free ports: one that requires TLS with a certificate from a CA made for the
 * test, one that also requires a client certificate that CA signed (mutual TLS), one without TLS.
 */
let dir: string;
let caFile: string;
let client: { certFile: string; keyFile: string };
let tlsPort: number;
let mutualPort: number;
let plainPort: number;
const servers: ChildProcess[] = [];
const responders: NatsConnection[] = [];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A certificate the test's CA signs, with these extensions, as `<name>.pem` and `<name>.key`. */
function signed(name: string, subject: string, extensions: string): { certFile: string; keyFile: string } {
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-subj', subject, '-out', `${name}.csr`]);
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`]);
  return { certFile: path.join(dir, `${name}.pem`), keyFile: path.join(dir, `${name}.key`) };
}

/** A CA, a server certificate it signs for 127.0.0.1 (nats.js checks an IP server's name as localhost), and a client's. */
function makeCertificates(): { server: { certFile: string; keyFile: string }; client: { certFile: string; keyFile: string } } {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-subj', '/CN=NATS Test CA', '-days', '2', '-out', 'ca.pem']);
  return {
    server: signed('server', '/CN=127.0.0.1', 'subjectAltName = IP:127.0.0.1,DNS:localhost\nextendedKeyUsage = serverAuth\n'),
    client: signed('client', '/CN=nats-tls-test', 'extendedKeyUsage = clientAuth\n'),
  };
}

/** The test's own service end, once the server it just started listens (within 5 s). */
async function connectOnceListening(url: string): Promise<NatsConnection> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectOnce(url, { caFile, ...client });
    } catch (err) {
      if (attempt >= 50) {
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function startNats(args: string[]): Promise<number> {
  const port = await freePort();
  servers.push(spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), ...args], { stdio: 'ignore' }));
  return port;
}

/** A client of the gateway's, configured as a deployment would be. */
function clientFor(natsUrl: string, files: Partial<NatsTlsFiles> = {}): GatewayNatsClient {
  const options = messagingOptions(
    {
      GATEWAY_PROFILE: 'distributed',
      NATS_URL: natsUrl,
      NATS_TLS_CA_FILE: files.caFile ?? '',
      NATS_TLS_CERT_FILE: files.certFile ?? '',
      NATS_TLS_KEY_FILE: files.keyFile ?? '',
      NATS_SUBJECT_PREFIX: '',
      NATS_REQUEST_TIMEOUT_MS: 1_000,
      NATS_MAX_IN_FLIGHT: 256,
      NATS_MAX_REPLY_BYTES: 4 * 1024 * 1024,
    },
    'nats-tls-test',
  );
  return createMessageClient(options) as unknown as GatewayNatsClient;
}

/** The TLS options a deployment with this NATS_URL and these NATS_TLS_* files connects with. */
function tlsOf(natsUrl: string, files: Partial<NatsTlsFiles> = {}): NatsTls | null {
  return natsTls(natsUrl.split(','), { caFile: '', certFile: '', keyFile: '', ...files });
}

function connectOnce(url: string, tls: NatsTls | null): Promise<NatsConnection> {
  return connect({ servers: url, ...(tls ? { tls } : {}), timeout: 2_000, reconnect: false });
}

async function requestThrough(client: GatewayNatsClient, subject: string, timeoutMs: number): Promise<unknown> {
  try {
    return await client.request(subject, { hello: 'over TLS' }, timeoutMs);
  } finally {
    await client.close();
  }
}

/** Answers echo.v1 on that server as a gateway service would. */
async function startResponder(url: string): Promise<void> {
  const responder = await connectOnceListening(url);
  responders.push(responder);
  responder.subscribe('echo.v1', {
    callback: (_, msg) => {
      const packet = msg.json<{ id: string; data: unknown }>();
      msg.respond(JSON.stringify({ id: packet.id, response: packet.data, isDisposed: true }));
    },
  });
  await responder.flush();
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'nats-tls-'));
  const certificates = makeCertificates();
  client = certificates.client;
  caFile = path.join(dir, 'ca.pem');
  const serverTls = ['--tls', '--tlscert', certificates.server.certFile, '--tlskey', certificates.server.keyFile];
  tlsPort = await startNats(serverTls);
  mutualPort = await startNats([...serverTls, '--tlsverify', '--tlscacert', caFile]);
  plainPort = await startNats([]);
  await startResponder(`tls://127.0.0.1:${tlsPort}`);
  await startResponder(`tls://127.0.0.1:${mutualPort}`);
});

afterAll(async () => {
  await Promise.all(responders.map((responder) => responder.close()));
  for (const server of servers) {
    server.kill('SIGTERM');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('NATS over TLS', () => {
  it('carries requests to a server whose certificate NATS_TLS_CA_FILE\'s CA signed', async () => {
    await expect(requestThrough(clientFor(`tls://127.0.0.1:${tlsPort}`, { caFile }), 'echo.v1', 5_000)).resolves.toEqual({ hello: 'over TLS' });
  });

  // A gateway client that cannot connect keeps trying (it waits for NATS at start); these
  // connect once, with the TLS options a deployment's config gives, and must be refused.
  it('refuses a server whose certificate no trusted CA signed', async () => {
    const url = `tls://127.0.0.1:${tlsPort}`;
    await expect(connectOnce(url, tlsOf(url))).rejects.toThrow(/certificate/);
  });

  it('never falls back to plain text: a tls:// URL to a server without TLS gets no connection', async () => {
    const url = `tls://127.0.0.1:${plainPort}`;
    await expect(connectOnce(url, tlsOf(url, { caFile }))).rejects.toThrow(/tls/);
    // The same server over nats:// is reachable: it was TLS that was refused, not the server.
    const plain = await connectOnce(`nats://127.0.0.1:${plainPort}`, tlsOf(`nats://127.0.0.1:${plainPort}`));
    await plain.close();
  });

  it('shows NATS_TLS_CERT_FILE to a server that admits only clients its CA signed (mutual TLS)', async () => {
    const url = `tls://127.0.0.1:${mutualPort}`;
    await expect(requestThrough(clientFor(url, { caFile, ...client }), 'echo.v1', 5_000)).resolves.toEqual({ hello: 'over TLS' });
  });

  it('gets no connection to such a server without a client certificate', async () => {
    const url = `tls://127.0.0.1:${mutualPort}`;
    // In TLS 1.3 the server checks the client's certificate after the client has finished its
    // side of the handshake: the client reads the server's "certificate required" alert, or,
    // when its first write meets the socket the server closed after sending it, a reset.
    await expect(connectOnce(url, tlsOf(url, { caFile }))).rejects.toThrow(/certificate|ECONNRESET/);
    // With its certificate, the same options get through: it was the certificate that was missing.
    const admitted = await connectOnce(url, tlsOf(url, { caFile, ...client }));
    await admitted.close();
  });
});
