import { ClientProxy, CustomTransportStrategy } from '@nestjs/microservices';
import { DEFAULT_NATS_MAX_IN_FLIGHT, DEFAULT_NATS_MAX_REPLY_BYTES } from '../config/platform.config';
import { GatewayNatsClient } from './gateway-nats.client';
import { GatewayNatsServer } from './gateway-nats.server';
import { InProcessBus, InProcessClient, InProcessServer } from './in-process.transport';
import { MessagingOptions, RequestReplyClient } from './message-bus';

/** The one bus of a standalone process, shared by every app module in it. */
export const standaloneBus = new InProcessBus();

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function createMessageClient(options: MessagingOptions): ClientProxy<any, any> & RequestReplyClient {
  if (options.profile === 'standalone') {
    return new InProcessClient(standaloneBus);
  }
  const client = new GatewayNatsClient({
    servers: options.servers,
    tls: options.tls,
    name: `${options.serviceName}-client`,
    requestTimeoutMs: options.requestTimeoutMs,
    maxReplyBytes: options.maxReplyBytes ?? DEFAULT_NATS_MAX_REPLY_BYTES,
  });
  return client as unknown as ClientProxy & RequestReplyClient;
}

export function createMessageServer(
  options: MessagingOptions,
  drainTimeoutMs: number,
): CustomTransportStrategy & (GatewayNatsServer | InProcessServer) {
  if (options.profile === 'standalone') {
    return new InProcessServer(standaloneBus, drainTimeoutMs, options.maxReplyBytes ?? DEFAULT_NATS_MAX_REPLY_BYTES);
  }
  return new GatewayNatsServer({
    servers: options.servers,
    tls: options.tls,
    name: options.serviceName,
    queue: options.serviceName,
    subjectPrefix: options.subjectPrefix,
    drainTimeoutMs,
    maxInFlight: options.maxInFlight ?? DEFAULT_NATS_MAX_IN_FLIGHT,
    maxReplyBytes: options.maxReplyBytes ?? DEFAULT_NATS_MAX_REPLY_BYTES,
  });
}
