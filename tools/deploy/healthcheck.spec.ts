import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { selfSignedCertificate } from '@gateway/testing';
import { ROOT } from './kustomize';

/**
 * docker/healthcheck.cjs, the images' HEALTHCHECK, run as Docker runs it (`node healthcheck.cjs`
 * with the container's environment) against a stand-in for the app's port.
 */
describe('docker/healthcheck.cjs', () => {
  const servers: Server[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'healthcheck-'));
  // The public name's certificate, as an edge serving TLS itself has: not 127.0.0.1's, not trusted.
  const certificate = selfSignedCertificate('gateway.example.com');
  const certFile = path.join(dir, 'tls.crt');
  writeFileSync(certFile, certificate.cert);

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  async function listen(server: Server, status: number): Promise<number> {
    servers.push(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      response.statusCode = request.url === '/health/live' ? status : 404;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  function healthcheck(env: Record<string, string>): Promise<number | null> {
    return new Promise((resolve) => {
      const child = execFile(process.execPath, ['healthcheck.cjs'], {
        cwd: path.join(ROOT, 'docker'),
        env: { PATH: process.env.PATH ?? '', ...env },
        timeout: 10_000,
      });
      child.once('exit', (code) => resolve(code));
    });
  }

  it('passes when the app is live on HTTP_PORT, and fails when it is not', async () => {
    expect(await healthcheck({ HTTP_PORT: String(await listen(createHttpServer(), 200)) })).toBe(0);
    expect(await healthcheck({ HTTP_PORT: String(await listen(createHttpServer(), 503)) })).toBe(1);
    const closed = createHttpServer();
    const port = await listen(closed, 200);
    await new Promise((resolve) => closed.close(resolve));
    expect(await healthcheck({ HTTP_PORT: String(port) })).toBe(1);
  });

  it('checks an edge that serves TLS itself (TLS_CERT_FILE) over HTTPS, its public certificate unverified', async () => {
    const https = (status: number) =>
      listen(createHttpsServer({ cert: certificate.cert, key: certificate.key }), status);
    expect(await healthcheck({ HTTP_PORT: String(await https(200)), TLS_CERT_FILE: certFile })).toBe(0);
    expect(await healthcheck({ HTTP_PORT: String(await https(503)), TLS_CERT_FILE: certFile })).toBe(1);
  });
});
