/**
 * CPU a service spends per request on dispatch alone: a Nest microservice on GatewayNatsServer
 * under the platform's interceptor and filter, with a handler that answers at once, through
 * Nest's pipeline and through the server's direct dispatch, each in a fresh process (the machine's
 * NATS; requests from this process, 32 in flight):
 *   node -r ./tools/scripts/register-ts.cjs tools/bench/micro/message-dispatch.ts
 */
import { Controller, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect } from '@nats-io/transport-node';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  AllExceptionsFilter,
  createLogger,
  dispatchAppDirectly,
  GatewayNatsServer,
  Metrics,
  RequestContextInterceptor,
} from '@gateway/platform';
import { APP_LOGGER } from '../../../libs/platform/src/tokens';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const REQUESTS = 40_000;
const IN_FLIGHT = 32;
// About a VERIFY message's size and shape (the envelope the interceptor reads the request id from).
const DATA = {
  envelope: { requestId: 'r-1', merchant: { id: 'BENCH1' } },
  orderId: 'o-1',
  transactionId: 't-1',
  body: { pad: 'x'.repeat(900) },
};

@Controller()
class EchoController {
  @MessagePattern('bench.echo.v1')
  echo(@Payload() data: { orderId: string }) {
    return Promise.resolve({ body: { orderId: data.orderId } });
  }
}

async function serve(direct: boolean): Promise<void> {
  const logger = createLogger({ service: 'bench', level: 'warn' });
  const metrics = new Metrics();
  @Module({
    controllers: [EchoController],
    providers: [
      { provide: APP_LOGGER, useValue: logger },
      { provide: Metrics, useValue: metrics },
      { provide: APP_FILTER, useClass: AllExceptionsFilter },
      { provide: APP_INTERCEPTOR, useClass: RequestContextInterceptor },
    ],
  })
  class BenchModule {}
  const prefix = `bench${randomBytes(4).toString('hex')}.`;
  const server = new GatewayNatsServer({
    servers: [NATS_URL],
    name: 'bench',
    queue: 'bench',
    subjectPrefix: prefix,
    drainTimeoutMs: 1_000,
    maxInFlight: 1_000,
  });
  const app = await NestFactory.createMicroservice(BenchModule, { strategy: server, logger: false });
  await app.init();
  if (direct) {
    dispatchAppDirectly(app, server);
  }
  await app.listen();
  const nats = await connect({ servers: NATS_URL });
  const payload = JSON.stringify({ pattern: 'bench.echo.v1', data: DATA, id: '1' });
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < count) {
          const reply = (await nats.request(`${prefix}bench.echo.v1`, payload, { timeout: 10_000 })).string();
          // Only answers count: a refusal (the in-flight cap) or an error would be cheaper.
          if (!reply.startsWith('{"response":{"body":{"orderId":"o-1"}}'))
            throw new Error(`unexpected reply ${reply}`);
        }
      }),
    );
  };
  await run(5_000);
  // The server's own CPU: this process also runs the requester, so it is measured without the server once more.
  const before = process.cpuUsage();
  await run(REQUESTS);
  const used = process.cpuUsage(before);
  await nats.close();
  await app.close();
  process.stdout.write(String((used.user + used.system) / REQUESTS));
}

if (process.argv[2] === '--one') {
  void serve(process.argv[3] === 'direct');
} else {
  const one = (mode: string) =>
    Number(
      execFileSync(process.execPath, ['-r', './tools/scripts/register-ts.cjs', __filename, '--one', mode], {
        encoding: 'utf8',
      }),
    );
  for (let round = 1; round <= 3; round++) {
    const nest = one('nest');
    const direct = one('direct');
    console.log(
      `round ${round}: Nest's pipeline ${nest.toFixed(1)} µs, direct ${direct.toFixed(1)} µs of CPU per request (server and requester)`,
    );
  }
}
