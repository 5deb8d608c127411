import { Writable } from 'node:stream';

/**
 * A logger destination that keeps each JSON log line it is written, parsed, in `lines`: for specs
 * that look at what a service logged (a request's access line, a warning, a support code).
 */
export function logLinesInto(lines: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
}
