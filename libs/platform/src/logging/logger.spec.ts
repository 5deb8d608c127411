import { Writable } from 'node:stream';
import { createLogger } from './logger';

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
});
