import { once } from 'node:events';
import { AddressInfo, connect, createServer, Socket } from 'node:net';
import { HttpException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TerminusModule } from '@nestjs/terminus';
import { AppLogger } from '../logging';
import { APP_LOGGER } from '../tokens';
import { HealthController } from './health.controller';
import { HEALTH_OPTIONS } from './health.tokens';
import { ReadinessChecks } from './readiness-checks';

const DRIVER_ERROR = 'password authentication failed for user "gw_edge" at db.internal.example:5432';

async function controllerWith(probe: () => Promise<unknown>) {
  const logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = (level: string) => (fields: Record<string, unknown>, message: string) => logged.push({ level, fields, message });
  const logger = { info: log('info'), warn: log('warn'), error: log('error') } as unknown as AppLogger;
  const module = await Test.createTestingModule({
    imports: [TerminusModule.forRoot({ logger: false })],
    controllers: [HealthController],
    providers: [ReadinessChecks, { provide: HEALTH_OPTIONS, useValue: { checkTimeoutMs: 200 } }, { provide: APP_LOGGER, useValue: logger }],
  }).compile();
  module.get(ReadinessChecks).add('database:edge', probe);
  return { health: module.get(HealthController), logged };
}

async function readyBody(health: HealthController): Promise<unknown> {
  try {
    return await health.ready();
  } catch (err) {
    return (err as HttpException).getResponse();
  }
}

describe('HealthController', () => {
  it("names a failing check to unauthenticated callers without its error, and logs the error once per change", async () => {
    let failure: Error | null = new Error(DRIVER_ERROR);
    const { health, logged } = await controllerWith(async () => {
      if (failure) throw failure;
    });
    const body = await readyBody(health);
    expect(body).toMatchObject({ status: 'error', error: { 'database:edge': { status: 'down', message: 'not answering' } } });
    expect(JSON.stringify(body)).not.toContain('gw_edge');
    await readyBody(health);
    // The kubelet probes every few seconds: one line while the error stays the same.
    expect(logged.map((l) => [l.level, l.message, l.fields.check])).toEqual([['warn', 'readiness check failing', 'database:edge']]);
    expect((logged[0].fields.err as Error).message).toBe(DRIVER_ERROR);
    failure = null;
    expect(await readyBody(health)).toMatchObject({ status: 'ok' });
    expect(logged.at(-1)).toMatchObject({ level: 'info', message: 'readiness check passing again', fields: { check: 'database:edge' } });
  });

  it('answers a check that hangs as timed out, and logs it', async () => {
    const { health, logged } = await controllerWith(() => new Promise(() => undefined));
    expect(await readyBody(health)).toMatchObject({ error: { 'database:edge': { status: 'down', message: 'timeout of 200ms exceeded' } } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(logged.map((l) => [l.level, l.message, l.fields.reason])).toEqual([['warn', 'readiness check failing', 'no answer within 200 ms']]);
  });

  it('counts an answer that arrived while the event loop was stalled past the timeout, though the timer is due first', async () => {
    // A ping over a real socket, its reply sent at once by the other end; then the loop is held
    // (a long synchronous task) past the timeout. When it turns again, the timer is due before
    // the reply is read: a timeout that fires right then marks down a dependency that answered.
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const [peer] = (await once(server, 'connection')) as [Socket];
    await once(client, 'connect');
    try {
      const { health, logged } = await controllerWith(async () => {
        const reply = once(client, 'data');
        peer.write('+PONG\r\n');
        // Once the check is under way (its timer set): the stall of another task.
        queueMicrotask(() => {
          const stalledUntil = Date.now() + 400;
          while (Date.now() < stalledUntil) {
            // The event loop is stalled: the reply waits in the socket's buffer.
          }
        });
        await reply;
      });
      expect(await readyBody(health)).toMatchObject({ status: 'ok', info: { 'database:edge': { status: 'up' } } });
      expect(logged).toEqual([]);
    } finally {
      client.destroy();
      peer.destroy();
      server.close();
    }
  });

  it('logs a check that times out once while it keeps timing out, though each probe fails late with its own error', async () => {
    // A database dropping packets: no answer within the timeout, the driver's connect timeout later.
    const { health, logged } = await controllerWith(
      () => new Promise((_, reject) => setTimeout(() => reject(new Error('timeout exceeded when trying to connect')), 300)),
    );
    for (let probe = 0; probe < 2; probe++) {
      expect(await readyBody(health)).toMatchObject({ error: { 'database:edge': { status: 'down' } } });
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(logged.map((l) => [l.level, l.message, l.fields.reason])).toEqual([['warn', 'readiness check failing', 'no answer within 200 ms']]);
  });
});
