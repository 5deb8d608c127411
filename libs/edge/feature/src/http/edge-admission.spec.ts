import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { createLogger, Metrics } from '@gateway/platform';
import { EdgeAdmission } from './edge-admission';

function response(connection = new Socket()): ServerResponse {
  return new ServerResponse(new IncomingMessage(connection));
}

async function value(metrics: Metrics, name: string): Promise<number> {
  return (await metrics.registry.getSingleMetric(name)!.get()).values[0].value;
}

describe('EdgeAdmission', () => {
  const logger = createLogger({ service: 'test', level: 'silent' });

  it('refuses past the cap and gives a slot back once per response, however often it is closed', async () => {
    const metrics = new Metrics();
    const admission = new EdgeAdmission(2, metrics, logger);
    const [first, second] = [response(), response()];
    expect([admission.admit(first), admission.admit(second), admission.admit(response())]).toEqual([true, true, false]);
    first.emit('close');
    first.emit('close');
    expect(await value(metrics, 'gateway_edge_requests_in_flight')).toBe(1);
    expect([admission.admit(response()), admission.admit(response())]).toEqual([true, false]);
    expect(await value(metrics, 'gateway_edge_requests_shed_total')).toBe(2);
  });

  it('gives back, once, the slots of requests pipelined on a connection that closes before their responses do', async () => {
    const metrics = new Metrics();
    const admission = new EdgeAdmission(20, metrics, logger);
    const connection = new Socket();
    const listening = connection.listenerCount('close');
    const pipelined = Array.from({ length: 20 }, () => response(connection));
    expect(pipelined.map((r) => admission.admit(r)).every(Boolean)).toBe(true);
    // One listener for them all: no leak warning however many are pipelined.
    expect(connection.listenerCount('close')).toBe(listening + 1);
    pipelined[0].emit('close');
    connection.emit('close');
    pipelined[1].emit('close');
    expect(await value(metrics, 'gateway_edge_requests_in_flight')).toBe(0);
  });

  it('admits a request whose client has already left without holding a slot: its close has come and will not come again', async () => {
    const metrics = new Metrics();
    const admission = new EdgeAdmission(1, metrics, logger);
    const left = response();
    // As Node marks a response whose connection closed while the body was read.
    Object.defineProperty(left, 'closed', { value: true });
    expect(admission.admit(left)).toBe(true);
    expect(await value(metrics, 'gateway_edge_requests_in_flight')).toBe(0);
    expect(admission.admit(response())).toBe(true);
  });

  it('with a cap of 0 counts without refusing', async () => {
    const metrics = new Metrics();
    const admission = new EdgeAdmission(0, metrics, logger);
    expect(Array.from({ length: 1_000 }, () => admission.admit(response())).every(Boolean)).toBe(true);
    expect(await value(metrics, 'gateway_edge_requests_in_flight')).toBe(1_000);
    expect(await value(metrics, 'gateway_edge_requests_shed_total')).toBe(0);
  });
});
