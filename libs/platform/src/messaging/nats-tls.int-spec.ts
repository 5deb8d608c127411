import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { messagingOptions, natsTls } from '../bootstrap/service-main';
import { freePort } from '../test-support';
import { GatewayNatsClient } from './gateway-nats.client';
import type { NatsTls } from './message-bus';
import { createMessageClient } from './transports';

/**
 * NATS_URL with tls:// and NATS_TLS_CA_FILE against real nats-servers started here on free
 * ports: one that requires TLS with a certificate from a CA made for the test, one without TLS.
 */
let dir: string;
let caFile: string;
let tlsPort: number;
let plainPort: number;
const servers: ChildProcess[] = [];
let responder: NatsConnection;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, and a certificate it signs for 127.0.0.1 (nats.js checks an IP server's name as localhost). */
function makeCertificates(): { certFile: string; keyFile: string } {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-subj', '/CN=NATS Test CA', '-days', '2', '-out', 'ca.pem']);
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-subj', '/CN=127.0.0.1', '-out', 'server.csr']);
  writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName = IP:127.0.0.1,DNS:localhost\nextendedKeyUsage = serverAuth\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'server.ext', '-out', 'server.pem']);
  return { certFile: path.join(dir, 'server.pem'), keyFile: path.join(dir, 'server.key') };
}

/** The test's own service end, once the server it just started listens (within 5 s). */
async function connectOnceListening(url: string): Promise<NatsConnection> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectOnce(url, { caFile });
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
function clientFor(natsUrl: string, tlsCaFile = ''): GatewayNatsClient {
  const options = messagingOptions(
    {
      GATEWAY_PROFILE: 'distributed',
      NATS_URL: natsUrl,
      NATS_TLS_CA_FILE: tlsCaFile,
      NATS_SUBJECT_PREFIX: '',
      NATS_REQUEST_TIMEOUT_MS: 1_000,
    },
    'nats-tls-test',
  );
  return createMessageClient(options) as unknown as GatewayNatsClient;
}

/** The TLS options a deployment with this NATS_URL and NATS_TLS_CA_FILE connects with. */
function tlsOf(natsUrl: string, tlsCaFile = ''): NatsTls | null {
  return natsTls(natsUrl.split(','), tlsCaFile);
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

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'nats-tls-'));
  const { certFile, keyFile } = makeCertificates();
  caFile = path.join(dir, 'ca.pem');
  tlsPort = await startNats(['--tls', '--tlscert', certFile, '--tlskey', keyFile]);
  plainPort = await startNats([]);
  responder = await connectOnceListening(`tls://127.0.0.1:${tlsPort}`);
  responder.subscribe('echo.v1', {
    callback: (_, msg) => {
      const packet = msg.json<{ id: string; data: unknown }>();
      msg.respond(JSON.stringify({ id: packet.id, response: packet.data, isDisposed: true }));
    },
  });
  await responder.flush();
});

afterAll(async () => {
  await responder?.close();
  for (const server of servers) {
    server.kill('SIGTERM');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('NATS over TLS', () => {
  it('carries requests to a server whose certificate NATS_TLS_CA_FILE\'s CA signed', async () => {
    await expect(requestThrough(clientFor(`tls://127.0.0.1:${tlsPort}`, caFile), 'echo.v1', 5_000)).resolves.toEqual({ hello: 'over TLS' });
  });

  // A gateway client that cannot connect keeps trying (it waits for NATS at start); these
  // connect once, with the TLS options a deployment's config gives, and must be refused.
  it('refuses a server whose certificate no trusted CA signed', async () => {
    const url = `tls://127.0.0.1:${tlsPort}`;
    await expect(connectOnce(url, tlsOf(url))).rejects.toThrow(/certificate/);
  });

  it('never falls back to plain text: a tls:// URL to a server without TLS gets no connection', async () => {
    const url = `tls://127.0.0.1:${plainPort}`;
    await expect(connectOnce(url, tlsOf(url, caFile))).rejects.toThrow(/tls/);
    // The same server over nats:// is reachable: it was TLS that was refused, not the server.
    const plain = await connectOnce(`nats://127.0.0.1:${plainPort}`, tlsOf(`nats://127.0.0.1:${plainPort}`));
    await plain.close();
  });
});
