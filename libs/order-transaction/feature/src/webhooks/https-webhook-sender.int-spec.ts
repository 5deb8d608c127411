import { once } from 'node:events';
import https, { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { selfSignedCertificate } from '@gateway/testing';
import { HttpsWebhookSender } from './https-webhook-sender';

/**
 * The sender over real HTTPS, to a receiver on this machine (a delivery that allows non-public
 * addresses, as a test merchant's may). What it delivers and signs: the dispatcher's tests.
 */
describe('HttpsWebhookSender', () => {
  const certificate = selfSignedCertificate();
  const connections: TLSSocket[] = [];
  let receiver: Server;
  let url: string;

  beforeAll(async () => {
    receiver = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    // A receiver with no idle timeout of its own (Go's net/http by default): it never closes a
    // kept-alive connection itself.
    receiver.keepAliveTimeout = 0;
    receiver.on('secureConnection', (socket: TLSSocket) => connections.push(socket));
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    receiver.closeAllConnections();
    receiver.close();
    await once(receiver, 'close');
  });

  it('closes idle connections after 30 s unless told otherwise', () => {
    const agents = jest.spyOn(https, 'Agent');
    const sender = new HttpsWebhookSender({ timeoutMs: 5_000 });
    try {
      expect(agents).toHaveBeenCalledTimes(2);
      for (const [options] of agents.mock.calls) {
        expect(options).toMatchObject({ keepAlive: true, timeout: 30_000 });
      }
    } finally {
      agents.mockRestore();
      sender.onApplicationShutdown();
    }
  });

  it('closes a kept-alive connection once it has been idle, although the receiver leaves it open', async () => {
    const sender = new HttpsWebhookSender({ timeoutMs: 5_000, extraCa: certificate.cert, idleSocketTimeoutMs: 100 });
    try {
      await expect(sender.send({ url, body: '{}', headers: {}, allowNonPublic: true })).resolves.toEqual({ delivered: true, result: 'HTTP 200' });
      expect(connections).toHaveLength(1);
      // Kept open, the connection would be closed by neither side: this waits till the test times out.
      if (!connections[0].closed) {
        await once(connections[0], 'close');
      }
    } finally {
      sender.onApplicationShutdown();
    }
  });
});
