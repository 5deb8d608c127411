import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AppLogger, Metrics } from '@gateway/platform';

/** At most one "refusing requests" line this often: a line per refusal would flood the log when it matters most. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/**
 * The edge's admission control (docs/decisions/edge-admission.md): at most `maxInFlight` requests
 * are answered at once; one more is refused by the caller, before its credentials, throttle and
 * order lock. A request holds its slot until its response closes, which Node signals whether the
 * answer was sent, the client went away, or the connection was cut (a timeout, an error):
 * Fastify's onResponse would miss the client that left, since a response written to a closed
 * socket never finishes. Or until its connection closes: a response queued behind an earlier one
 * on the same connection (HTTP/1.1 pipelining) has no socket yet, and Node never closes it when
 * the client leaves, so its slot would be lost for good. `maxInFlight` 0 counts without refusing.
 */
export class EdgeAdmission {
  private inFlight = 0;
  private refusedSinceLine = 0;
  private lineWrittenAt = Number.NEGATIVE_INFINITY;
  /** The slots held by requests of each open connection, given back if it closes first. */
  private readonly heldOn = new WeakMap<Socket, Set<() => void>>();
  private readonly refusals: ReturnType<Metrics['counter']>;

  constructor(
    private readonly maxInFlight: number,
    metrics: Metrics,
    private readonly logger: AppLogger,
  ) {
    this.refusals = metrics.counter(
      'gateway_edge_requests_shed_total',
      'Requests the edge answered 503 SERVER_BUSY at once, unprocessed, because EDGE_MAX_IN_FLIGHT requests were in flight.',
    );
    metrics.sampledGauge('gateway_edge_requests_in_flight', 'Requests the edge is answering (counted against EDGE_MAX_IN_FLIGHT).', () => this.inFlight);
  }

  /**
   * Takes a slot for the request whose response this is, given back when the response or its
   * connection closes, whichever is first; false at the cap (the refusal is counted and logged here; the caller answers it).
   */
  admit(response: ServerResponse): boolean {
    const connection = response.req.socket;
    if (response.closed || connection.destroyed) {
      // The client left while its last bytes were read: nobody is waiting, nothing to hold.
      return true;
    }
    if (this.maxInFlight > 0 && this.inFlight >= this.maxInFlight) {
      this.noteRefusal();
      return false;
    }
    this.inFlight++;
    let held = true;
    const giveBack = () => {
      if (held) {
        held = false;
        this.inFlight--;
        this.heldOn.get(connection)?.delete(giveBack);
      }
    };
    response.once('close', giveBack);
    this.giveBackWhenClosed(connection, giveBack);
    return true;
  }

  /**
   * One listener per connection, whatever the number of requests pipelined on it (a listener
   * each would have Node warn of a leak from the eleventh on, once per such connection).
   */
  private giveBackWhenClosed(connection: Socket, giveBack: () => void): void {
    const held = this.heldOn.get(connection);
    if (held) {
      held.add(giveBack);
      return;
    }
    const first = new Set([giveBack]);
    this.heldOn.set(connection, first);
    connection.once('close', () => {
      this.heldOn.delete(connection);
      first.forEach((slot) => slot());
    });
  }

  private noteRefusal(): void {
    this.refusals.inc();
    this.refusedSinceLine++;
    const now = Date.now();
    if (now - this.lineWrittenAt >= REFUSAL_LOG_INTERVAL_MS) {
      this.logger.warn({ maxInFlight: this.maxInFlight, refusedSinceLastLine: this.refusedSinceLine }, 'refusing requests unprocessed: too many in flight at the edge');
      this.lineWrittenAt = now;
      this.refusedSinceLine = 0;
    }
  }
}
