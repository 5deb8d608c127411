import { GatewayError } from '@gateway/contracts';
import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { runWithRequestContext } from './request-context';

/** A logger writing into an array of parsed lines. */
function capturing() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'test', level: 'info', destination }) };
}

describe('createLogger', () => {
  it('masks a card number in the message, given alone or after the object', () => {
    const { lines, logger } = capturing();
    logger.info('card 5123450000000008 declined');
    logger.warn({ orderId: 'o-1' }, 'pan 5123450000000008 refused');
    expect(lines.map((line) => line.msg)).toEqual(['card 512345…0008 declined', 'pan 512345…0008 refused']);
    expect(JSON.stringify(lines)).not.toContain('5123450000000008');
  });

  it('masks card numbers and redacts secrets in the logged object', () => {
    const { lines, logger } = capturing();
    logger.info({ note: 'pan 5123450000000008', authorization: 'Basic abc' }, 'request');
    expect(lines[0]).toMatchObject({
      note: 'pan 512345…0008',
      authorization: '[REDACTED]',
      msg: 'request',
      service: 'test',
    });
  });

  it('keeps a payer\'s personal data out of a line that logs a body or an error quoting it', () => {
    const { lines, logger } = capturing();
    const body = {
      customer: { email: 'zelda.privacy@example.org', firstName: 'Quintessa', phone: '+44 7911 123456' },
      billing: { address: { street: '17 Marigoldweg' } },
      device: { ipAddress: '203.0.113.77' },
      sourceOfFunds: { provided: { card: { nameOnCard: 'QUINTESSA ZANZIBAROVA' } } },
      order: { custom: { loyalty: 'L-778812' }, customerNote: 'leave at the door' },
    };
    const refused = GatewayError.invalidField('customer.email', 'INVALID', "Value 'zelda.privacy@example.org' is invalid.");
    logger.warn({ body }, 'body slipped into a line');
    logger.error({ err: refused }, 'request failed');
    logger.info(`payer zelda.privacy@example.org returned`);
    const logged = JSON.stringify(lines);
    for (const value of ['zelda.privacy@example.org', 'Quintessa', '7911 123456', 'Marigoldweg', '203.0.113.77', 'ZANZIBAROVA', 'L-778812', 'leave at the door']) {
      expect(logged).not.toContain(value);
    }
    expect(lines[1]).toMatchObject({ err: { message: "Value '[email]' is invalid." } });
    expect(lines[2].msg).toBe('payer [email] returned');
  });

  it('scrubs what pino writes besides the object and the message: values formatted into it, an error\'s message standing for it', () => {
    const { lines, logger } = capturing();
    logger.info('card %s declined for %s', '5123450000000008', 'zelda.privacy@example.org');
    logger.info({ orderId: 'o-1' }, 'request %o', { password: 'hunter2-secret', card: { number: '5123450000000008' } });
    // pino logs the error's message as the line's message when the call gives none.
    logger.error(new Error('card 5123450000000008 of zelda.privacy@example.org refused'));
    logger.warn({ err: new Error('webhook to https://user:pa55word@merchant.example/hooks?customer=zelda failed') });
    logger.warn('lookup failed: %s', new Error('no session for 5123450000000008'));
    const logged = JSON.stringify(lines);
    for (const value of ['5123450000000008', 'zelda.privacy@example.org', 'hunter2-secret', 'pa55word', 'customer=zelda']) {
      expect(logged).not.toContain(value);
    }
    expect(lines.map((line) => line.msg)).toEqual([
      'card 512345…0008 declined for [email]',
      'request {"password":"[REDACTED]","card":{"number":"[REDACTED]"}}',
      'card 512345…0008 of [email] refused',
      'webhook to https://merchant.example/hooks failed',
      'lookup failed: Error: no session for 512345…0008',
    ]);
  });

  it("scrubs a child logger's bindings, a child's child's and what setBindings adds (to a child or the parent), as it scrubs a line's object", () => {
    const { lines, logger } = capturing();
    const child = logger.child({ card: { number: '5123450000000008', securityCode: '123' }, note: 'pan 5123450000000008', pan: 5123450000000008 });
    child.info('from the child');
    const grandchild = child.child({ csc: '456', payer: 'zelda.privacy@example.org' }, { formatters: { bindings: (given) => ({ ...given, step: 'own' }) } });
    grandchild.info('from its child');
    child.setBindings({ authorization: 'Basic dXNlcjpwYXNzd29yZA==' });
    child.info('after setBindings');
    logger.setBindings({ cvv: '789' });
    logger.info('the parent after setBindings');
    const logged = JSON.stringify(lines);
    for (const value of ['5123450000000008', '"123"', '456', '789', 'zelda.privacy@example.org', 'dXNlcjpwYXNzd29yZA==']) {
      expect(logged).not.toContain(value);
    }
    expect(lines[0]).toMatchObject({ card: { number: '[REDACTED]', securityCode: '[REDACTED]' }, note: 'pan 512345…0008', pan: '[REDACTED]', msg: 'from the child' });
    // The caller's own bindings formatter still applies, before the scrub.
    expect(lines[1]).toMatchObject({ csc: '[REDACTED]', payer: '[email]', step: 'own', note: 'pan 512345…0008' });
    expect(lines[2]).toMatchObject({ authorization: '[REDACTED]', msg: 'after setBindings' });
    expect(lines[3]).toMatchObject({ cvv: '[REDACTED]', msg: 'the parent after setBindings' });
  });

  it('scrubs what the mixin adds (the request context, whose correlation id the merchant chose)', () => {
    // pino merges the mixin into the line's object before the log formatter scrubs it.
    const { lines, logger } = capturing();
    runWithRequestContext({ requestId: 'r-1', correlationId: 'card 5123450000000008' }, () => logger.info('in a request'));
    expect(lines[0]).toMatchObject({ requestId: 'r-1', correlationId: 'card 512345…0008' });
  });
});
