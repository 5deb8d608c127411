import { readdirSync, readFileSync } from 'node:fs';

/**
 * What a Postgres process works for, read from the title Postgres gives it
 * (`/proc/<pid>/cmdline`: `postgres: [<cluster_name>: ]<what>`):
 * - a client backend, `<user> <database> <host>(<port>)` or `... [local]`, then its activity:
 *   that database's;
 * - an autovacuum worker, `autovacuum worker <database>` once it has picked one: cleaning up after
 *   that database's writes;
 * - a parallel worker, `parallel worker for PID <leader>`: its leader's;
 * - any other title (checkpointer, background writer, walwriter, autovacuum launcher, logical
 *   replication launcher, archiver, a wal sender, a worker not yet at a database): the server's
 *   own work, shared by every database;
 * - untitled (the postmaster's command line): the postmaster, or a backend forked a moment ago
 *   that has not titled itself yet.
 */
export type PostgresWork =
  | { kind: 'database'; database: string }
  | { kind: 'parallel'; leader: number }
  | { kind: 'shared'; what: string }
  | { kind: 'untitled' };

// `(?:.*?: )?` is the cluster name, if set: tried shortest first, so a title without one reads whole.
const BACKEND = /^postgres: (?:.*?: )?(?!walsender )\S+ (\S+) (?:\[local\]|\S+\(\d+\))(?: |$)/;
const AUTOVACUUM_WORKER = /^postgres: (?:.*?: )?autovacuum worker (\S+)/;
const PARALLEL_WORKER = /^postgres: (?:.*?: )?parallel worker for PID (\d+)/;
const TITLED = /^postgres: (?:[^:]*: )?(.*)$/;

export function postgresWork(title: string): PostgresWork {
  const text = title.replace(/\0/g, ' ').trim();
  const backend = BACKEND.exec(text) ?? AUTOVACUUM_WORKER.exec(text);
  if (backend) {
    return { kind: 'database', database: backend[1] };
  }
  const parallel = PARALLEL_WORKER.exec(text);
  if (parallel) {
    return { kind: 'parallel', leader: Number(parallel[1]) };
  }
  const titled = TITLED.exec(text);
  return titled ? { kind: 'shared', what: titled[1] } : { kind: 'untitled' };
}

/**
 * Which Postgres work is the run's: the backends of its databases on the machine's server, which
 * other work on the machine shares (the distributed profile, the reference chain); or every
 * backend of the server a process of the run started (the standalone profile's embedded
 * Postgres, a child of the gateway).
 */
export type PostgresScope = { databases: readonly string[] } | { startedBy: number };

/** One Postgres process as read from /proc. */
export interface PostgresProcess {
  pid: number;
  /** Its postmaster's pid (its own, for a postmaster). */
  server: number;
  /** The postmaster's parent (postmasters only). */
  parent?: number;
  work: PostgresWork;
  /** CPU time so far (user + system), in ms. */
  ms: number;
}

/** Every Postgres process on the machine now, keyed by pid and start time (a reused pid is another process). */
export function postgresProcesses(): Map<string, PostgresProcess> {
  const found = new Map<string, PostgresProcess>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') {
        continue;
      }
      // Fields after the command name (which may hold spaces): ppid is the 4th, utime and stime the 14th and 15th, starttime the 22nd.
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      const postmaster = commandOf(ppid) !== 'postgres';
      found.set(`${pid}@${fields[19]}`, {
        pid,
        server: postmaster ? pid : ppid,
        ...(postmaster ? { parent: ppid } : {}),
        work: postgresWork(readFileSync(`/proc/${entry}/cmdline`, 'utf8')),
        ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND,
      });
    } catch {
      // Gone between the listing and the reads.
    }
  }
  return found;
}

function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, 100 on every architecture Node runs on. */
export const CLOCK_TICKS_PER_SECOND = 100;

interface Tracked {
  latest: PostgresProcess;
  /** CPU time when the scenario started; 0 for a process started since. */
  atStart: number;
}

/**
 * The CPU time Postgres spent for a run between `start` and `spent()`, in ms: `run`, the
 * backends of the run's databases (and their autovacuum and parallel workers); `shared`, the
 * processes of the same server that work for every database (the postmaster, checkpointer,
 * background writer, walwriter, launchers, wal senders). Backends of other databases (other
 * test runs, other sessions' work on the machine's Postgres) and other servers are neither.
 *
 * Backends come and go with connections, so `sample()` is called while the scenario runs: a
 * process first seen after the start counts from zero, one that exits counts up to its last
 * sample (what it did after that is lost: at most one sampling interval of it).
 */
export class PostgresCpu {
  private readonly tracked = new Map<string, Tracked>();

  constructor(
    private readonly scope: PostgresScope,
    private readonly read: () => Map<string, PostgresProcess> = postgresProcesses,
  ) {
    for (const [key, process] of this.read()) {
      this.tracked.set(key, { latest: process, atStart: process.ms });
    }
  }

  sample(): void {
    for (const [key, process] of this.read()) {
      // The latest reading decides its work: a backend forked just before a sample titles itself later.
      this.tracked.set(key, { latest: process, atStart: this.tracked.get(key)?.atStart ?? 0 });
    }
  }

  spent(): { run: number; shared: number } {
    this.sample();
    const scope = this.scope;
    const processes = [...this.tracked.values()].map((t) => t.latest);
    const runServers = new Set(
      'startedBy' in scope
        ? processes.filter((p) => p.server === p.pid && p.parent === scope.startedBy).map((p) => p.pid)
        : processes.filter((p) => this.isRunDatabase(p.work)).map((p) => p.server),
    );
    const workOf = (p: PostgresProcess): PostgresWork => {
      const leader = p.work.kind === 'parallel' ? p.work.leader : undefined;
      return processes.find((q) => q.pid === leader && q.server === p.server)?.work ?? p.work;
    };
    const spent = { run: 0, shared: 0 };
    for (const { latest, atStart } of this.tracked.values()) {
      if (!runServers.has(latest.server)) {
        continue;
      }
      const work = workOf(latest);
      const ms = Math.max(0, latest.ms - atStart);
      if (work.kind === 'shared' || work.kind === 'untitled') {
        spent.shared += ms;
      } else if ('startedBy' in scope || this.isRunDatabase(work)) {
        spent.run += ms;
      }
    }
    return { run: Math.round(spent.run), shared: Math.round(spent.shared) };
  }

  private isRunDatabase(work: PostgresWork): boolean {
    return work.kind === 'database' && 'databases' in this.scope && this.scope.databases.includes(work.database);
  }
}
