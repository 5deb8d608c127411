import { connect, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlatformApp } from '../test-support';

/** Everything the server sends on `socket` until it closes the connection. */
function readAll(socket: Socket): Promise<string> {
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('bootstrapApp, once its HTTP server is closing', () => {
  it("answers a request read on a connection that was busy when the close began with the API's 503 SERVER_BUSY, Retry-After and the connection closed", async () => {
    const app = await startPlatformApp('bootstrap-closing');
    const { hostname, port } = new URL(app.url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const answer = readAll(socket);
    // The request is on its way when the shutdown begins (its headers not all read): the
    // connection is not idle, so the close leaves it open.
    socket.write('GET /health/live HTTP/1.1\r\nHost: gateway\r\n');
    await sleep(100);
    const shutdown = app.shutdown('test: SIGTERM with a request being read');
    await sleep(300);
    socket.write('Connection: keep-alive\r\n\r\n');
    const raw = await answer;
    await shutdown;

    const [head, body] = raw.split('\r\n\r\n');
    const [status, ...headers] = head.split('\r\n');
    const header = (name: string) =>
      headers
        .find((line) => line.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim();
    expect(status).toBe('HTTP/1.1 503 Service Unavailable');
    expect(header('retry-after')).toBe('1');
    expect(header('connection')).toBe('close');
    expect(JSON.parse(body)).toEqual({
      result: 'ERROR',
      error: { cause: 'SERVER_BUSY', explanation: 'The gateway is busy. Please retry the request.' },
    });
  });
});
