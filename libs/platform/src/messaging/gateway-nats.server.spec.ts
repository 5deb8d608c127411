import { GatewayNatsServer } from './gateway-nats.server';

describe('GatewayNatsServer routing', () => {
  const server = new GatewayNatsServer({ servers: ['nats://127.0.0.1:1'], name: 't', queue: 't', subjectPrefix: '', drainTimeoutMs: 10, maxInFlight: 10 });
  const handler = Object.assign(async () => 'answer', { isEventHandler: false });
  server.addHandler('order-transaction.ledger.record.v1', handler);

  it('finds the handler of a subject without trying the subject as JSON (no SyntaxError thrown per message)', () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(server.getHandlerByPattern('order-transaction.ledger.record.v1')).toBe(handler);
      expect(server.getHandlerByPattern('order-transaction.ledger.begin.v1')).toBeNull();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });
});
