import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface MerchantReturnServer {
  /** `https://127.0.0.1:<port>/return`: a browser payment's returnUrl. */
  returnUrl: string;
  close(): Promise<void>;
}

/**
 * The merchant's side of a browser payment, as small as it can be: an https page (returnUrl
 * must be https) with a self-signed certificate made by openssl for this run, showing the
 * order and transaction ids the gateway sent the payer back with.
 */
export async function startMerchantReturnServer(): Promise<MerchantReturnServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'merchant-return-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
    { stdio: 'ignore' },
  );
  const server: Server = createServer(
    { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
    (request, response) => {
      const url = new URL(request.url ?? '/', 'https://127.0.0.1');
      if (url.pathname !== '/return') {
        response.writeHead(404).end();
        return;
      }
      const text = (name: string) => escape(url.searchParams.get(name) ?? '');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!DOCTYPE html><html><head><title>Thank you</title></head><body><h1>Back at the shop</h1>` +
          `<p>Order <span id="order-id">${text('orderId')}</span>, transaction <span id="transaction-id">${text('transactionId')}</span></p></body></html>`,
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    returnUrl: `https://127.0.0.1:${port}/return`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
