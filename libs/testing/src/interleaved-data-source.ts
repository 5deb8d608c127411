import type { DataSource } from 'typeorm';

/** A statement held back by `InterleavedDataSource.hold`. */
export interface HeldStatement {
  /** Resolves when the held statement is reached (and not yet sent). */
  reached: Promise<void>;
  open(): void;
}

export interface InterleavedDataSource {
  /** `dataSource`, its sessions' statements going through the holds and failures below. */
  source: DataSource;
  /** The `nth` statement from now whose SQL matches waits, before it is sent, until the gate opens. */
  hold(pattern: RegExp, nth?: number): HeldStatement;
  /** The next statement whose SQL matches fails with `message` instead of being sent. */
  fail(pattern: RegExp, message: string): void;
}

/**
 * A data source for integration tests that interleave two database sessions deterministically:
 * a session is stopped at a chosen statement (or made to fail there) while another acts.
 */
export function interleavedDataSource(dataSource: DataSource): InterleavedDataSource {
  const holds: { pattern: RegExp; skip: number; arrive: () => void; wait: Promise<void> }[] = [];
  const failures: { pattern: RegExp; message: string }[] = [];
  const source = Object.create(dataSource) as DataSource;
  source.createQueryRunner = (...args) => {
    const runner = dataSource.createQueryRunner(...args);
    const query = runner.query.bind(runner);
    runner.query = (async (sql: string, params?: unknown[]) => {
      const failing = failures.findIndex((f) => f.pattern.test(sql));
      if (failing >= 0) {
        throw new Error(failures.splice(failing, 1)[0].message);
      }
      const at = holds.findIndex((h) => h.pattern.test(sql) && h.skip-- === 0);
      if (at >= 0) {
        const [held] = holds.splice(at, 1);
        held.arrive();
        await held.wait;
      }
      return query(sql, params);
    }) as typeof runner.query;
    return runner;
  };
  return {
    source,
    hold(pattern, nth = 1) {
      let arrive = () => undefined as void;
      let open = () => undefined as void;
      const reached = new Promise<void>((resolve) => (arrive = resolve));
      const wait = new Promise<void>((resolve) => (open = resolve));
      holds.push({ pattern, skip: nth - 1, arrive, wait });
      return { reached, open };
    },
    fail(pattern, message) {
      failures.push({ pattern, message });
    },
  };
}
