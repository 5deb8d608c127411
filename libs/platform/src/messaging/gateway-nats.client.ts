import { ClientNats, ReadPacket, WritePacket } from '@nestjs/microservices';
import type { Msg } from '@nats-io/transport-node';

export interface GatewayNatsClientOptions {
  servers: string[];
  name: string;
  requestTimeoutMs: number;
}

/**
 * Nest's NATS client subscribes a fresh inbox per request and cannot tell "nobody serves
 * this subject" from a slow service. This one uses the NATS request API instead: one shared
 * (muxed) inbox subscription, and an immediate no-responders error when no instance of the
 * service is up, so the edge answers SERVER_BUSY at once instead of after the timeout.
 */
export class GatewayNatsClient extends ClientNats {
  constructor(private readonly clientOptions: GatewayNatsClientOptions) {
    super({
      servers: clientOptions.servers,
      name: clientOptions.name,
      // Keep trying forever: a NATS restart must not leave the process disconnected.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      waitOnFirstConnect: true,
      // nats.js captures two stack traces per request (an Error built up front, in case the
      // request fails) unless told not to: a measurable share of each hop's CPU
      // (docs/performance.md). Failures still arrive as RequestError or TimeoutError.
      noAsyncTraces: true,
    });
  }

  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const packet = this.assignPacketId(partialPacket);
    const subject = this.normalizePattern(partialPacket.pattern);
    const serialized = this.serializer.serialize(packet) as { data: Uint8Array; headers?: never };
    const connection = this.unwrap<{ request(s: string, d: Uint8Array, o: object): Promise<Msg> }>();
    let active = true;
    connection
      .request(subject, serialized.data, { timeout: this.clientOptions.requestTimeoutMs, headers: serialized.headers })
      .then(async (msg) => {
        const message = (await this.deserializer.deserialize(msg)) as WritePacket;
        if (active) {
          callback({ err: message.err, response: message.response, isDisposed: true });
        }
      })
      .catch((err: unknown) => {
        if (active) {
          callback({ err, isDisposed: true });
        }
      });
    return () => {
      active = false;
    };
  }
}
