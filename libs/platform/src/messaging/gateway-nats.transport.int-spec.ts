import { randomBytes } from 'node:crypto';
import { testServers } from '../test-support';
import { dispatchAppDirectly } from './direct-handlers';
import { GatewayNatsClient } from './gateway-nats.client';
import { GatewayNatsServer } from './gateway-nats.server';
import { describeTransportContract, PROBE_MAX_REPLY_BYTES, startTransportProbe } from './testing/transport-contract';

/** The transport contract on NATS, through each of the server's paths: direct dispatch (the services') and Nest's pipeline. */
for (const direct of [true, false]) {
  describeTransportContract(`NATS (${direct ? 'direct dispatch' : "Nest's pipeline"})`, async () => {
    const subjectPrefix = `t${randomBytes(6).toString('hex')}.`;
    const server = new GatewayNatsServer({
      servers: [testServers.natsUrl],
      name: 'transport-probe',
      queue: 'transport-probe',
      subjectPrefix,
      drainTimeoutMs: 1_000,
      maxInFlight: 16,
      maxReplyBytes: PROBE_MAX_REPLY_BYTES,
    });
    const app = await startTransportProbe(server);
    if (direct) {
      dispatchAppDirectly(app, server);
    }
    await app.listen();
    await server.connection()?.flush();
    const client = new GatewayNatsClient({
      servers: [testServers.natsUrl],
      name: 'transport-requester',
      requestTimeoutMs: 2_000,
    });
    return {
      client,
      subjectPrefix,
      close: async () => {
        await client.close();
        await app.close();
      },
    };
  });
}
