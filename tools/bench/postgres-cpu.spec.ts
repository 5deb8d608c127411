import { PostgresCpu, PostgresProcess, postgresProcesses, postgresWork } from './postgres-cpu';

describe('what a Postgres process works for, by its title', () => {
  it.each([
    // Postgres 15 with cluster_name (Debian's 15/main), titles as /proc/<pid>/cmdline shows them.
    ['postgres: 15/main: gw_abc_ledger gw_bench_abc 127.0.0.1(51234) idle', { kind: 'database', database: 'gw_bench_abc' }],
    ['postgres: 15/main: gw_abc_ledger gw_bench_abc 127.0.0.1(51234) INSERT waiting\0\0', { kind: 'database', database: 'gw_bench_abc' }],
    ['postgres: 15/main: postgres perf2_other [local] UPDATE', { kind: 'database', database: 'perf2_other' }],
    ['postgres: 15/main: bench gw_bench_abc ::1(40000) authentication', { kind: 'database', database: 'gw_bench_abc' }],
    ['postgres: 15/main: autovacuum worker gw_bench_abc', { kind: 'database', database: 'gw_bench_abc' }],
    ['postgres: 15/main: parallel worker for PID 4242', { kind: 'parallel', leader: 4242 }],
    // Without cluster_name (the embedded Postgres of the standalone profile).
    ['postgres: postgres gateway 127.0.0.1(40001) idle in transaction', { kind: 'database', database: 'gateway' }],
    ['postgres: checkpointer', { kind: 'shared', what: 'checkpointer' }],
    ['postgres: io worker 0', { kind: 'shared', what: 'io worker 0' }],
    // The server's own processes: shared by every database.
    ['postgres: 15/main: checkpointer', { kind: 'shared', what: 'checkpointer' }],
    ['postgres: 15/main: background writer', { kind: 'shared', what: 'background writer' }],
    ['postgres: 15/main: walwriter', { kind: 'shared', what: 'walwriter' }],
    ['postgres: 15/main: autovacuum launcher', { kind: 'shared', what: 'autovacuum launcher' }],
    ['postgres: 15/main: logical replication launcher', { kind: 'shared', what: 'logical replication launcher' }],
    ['postgres: 15/main: autovacuum worker', { kind: 'shared', what: 'autovacuum worker' }],
    // A physical wal sender has no database; its user must not be read as one.
    ['postgres: 15/main: walsender replicator 10.0.0.2(5433) streaming 0/3000148', { kind: 'shared', what: 'walsender replicator 10.0.0.2(5433) streaming 0/3000148' }],
    ['/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf', { kind: 'untitled' }],
  ])('%s', (title, work) => {
    expect(postgresWork(title)).toEqual(work);
  });
});

describe('the CPU Postgres spent for a run', () => {
  const MACHINE = 100;
  const EMBEDDED = 900;
  const GATEWAY = 800;
  const postmaster = (pid: number, parent: number, ms: number): PostgresProcess => ({ pid, server: pid, parent, work: { kind: 'untitled' }, ms });
  const of = (pid: number, server: number, title: string, ms: number): PostgresProcess => ({ pid, server, work: postgresWork(title), ms });
  const readings = (...sets: [string, PostgresProcess][][]) => {
    let next = 0;
    return () => new Map(sets[Math.min(next++, sets.length - 1)]);
  };

  it("counts the run's database's backends, apart from the server's shared processes, and not other databases' work", () => {
    const read = readings(
      // At the start.
      [
        ['100@1', postmaster(MACHINE, 1, 1_000)],
        ['101@1', of(101, MACHINE, 'postgres: 15/main: walwriter', 500)],
        ['102@1', of(102, MACHINE, 'postgres: 15/main: checkpointer', 50)],
        ['110@5', of(110, MACHINE, 'postgres: 15/main: gw_r_ledger gw_bench_r 127.0.0.1(1) idle', 2_000)],
        // A backend that will close its connection during the scenario.
        ['111@5', of(111, MACHINE, 'postgres: 15/main: gw_r_edge gw_bench_r 127.0.0.1(2) idle', 300)],
        ['120@6', of(120, MACHINE, 'postgres: 15/main: postgres pgbench_scratch [local] UPDATE', 9_000)],
        // Another server on the machine (another session's embedded Postgres).
        ['900@2', postmaster(EMBEDDED, 77, 10)],
        ['901@2', of(901, EMBEDDED, 'postgres: postgres gateway 127.0.0.1(3) idle', 40)],
      ],
      // A sample during the scenario: 111 did some work, a backend has just been forked (untitled yet).
      [
        ['100@1', postmaster(MACHINE, 1, 1_010)],
        ['101@1', of(101, MACHINE, 'postgres: 15/main: walwriter', 530)],
        ['102@1', of(102, MACHINE, 'postgres: 15/main: checkpointer', 50)],
        ['110@5', of(110, MACHINE, 'postgres: 15/main: gw_r_ledger gw_bench_r 127.0.0.1(1) idle', 2_400)],
        ['111@5', of(111, MACHINE, 'postgres: 15/main: gw_r_edge gw_bench_r 127.0.0.1(2) idle', 350)],
        ['112@50', of(112, MACHINE, '/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main', 1)],
        ['120@6', of(120, MACHINE, 'postgres: 15/main: postgres pgbench_scratch [local] UPDATE', 12_000)],
        ['900@2', postmaster(EMBEDDED, 77, 10)],
        ['901@2', of(901, EMBEDDED, 'postgres: postgres gateway 127.0.0.1(3) idle', 900)],
      ],
      // At the end: 111 has exited, 112 is the run's backend, its pid reused by nothing; a parallel worker of 110 came and stays.
      [
        ['100@1', postmaster(MACHINE, 1, 1_020)],
        ['101@1', of(101, MACHINE, 'postgres: 15/main: walwriter', 560)],
        ['102@1', of(102, MACHINE, 'postgres: 15/main: checkpointer', 60)],
        ['110@5', of(110, MACHINE, 'postgres: 15/main: gw_r_ledger gw_bench_r 127.0.0.1(1) idle', 2_800)],
        ['112@50', of(112, MACHINE, 'postgres: 15/main: gw_r_edge gw_bench_r 127.0.0.1(4) idle', 70)],
        ['113@60', of(113, MACHINE, 'postgres: 15/main: parallel worker for PID 110', 25)],
        ['114@61', of(114, MACHINE, 'postgres: 15/main: autovacuum worker gw_bench_r', 5)],
        ['115@62', of(115, MACHINE, 'postgres: 15/main: autovacuum worker pgbench_scratch', 500)],
        ['120@6', of(120, MACHINE, 'postgres: 15/main: postgres pgbench_scratch [local] UPDATE', 15_000)],
        ['900@2', postmaster(EMBEDDED, 77, 10)],
        ['901@2', of(901, EMBEDDED, 'postgres: postgres gateway 127.0.0.1(3) idle', 1_500)],
      ],
    );
    const cpu = new PostgresCpu({ databases: ['gw_bench_r'] }, read);
    cpu.sample();
    // Run: 110 800, 111 50 (to its last sample), 112 70 (from zero), 113 25 (its leader's), 114 5 (the run's vacuum).
    // Shared: postmaster 20, walwriter 60, checkpointer 10. Not: pgbench_scratch's backend and vacuum, the other server.
    expect(cpu.spent()).toEqual({ run: 950, shared: 90 });
  });

  it("counts every backend of the server the run started, and none of the machine's", () => {
    const read = readings(
      [
        ['100@1', postmaster(MACHINE, 1, 1_000)],
        ['110@5', of(110, MACHINE, 'postgres: 15/main: postgres gateway 127.0.0.1(1) idle', 2_000)],
        ['900@2', postmaster(EMBEDDED, GATEWAY, 10)],
        ['901@2', of(901, EMBEDDED, 'postgres: postgres gateway 127.0.0.1(3) idle', 40)],
        ['902@2', of(902, EMBEDDED, 'postgres: walwriter', 4)],
      ],
      [
        ['100@1', postmaster(MACHINE, 1, 1_100)],
        ['110@5', of(110, MACHINE, 'postgres: 15/main: postgres gateway 127.0.0.1(1) idle', 5_000)],
        ['900@2', postmaster(EMBEDDED, GATEWAY, 12)],
        ['901@2', of(901, EMBEDDED, 'postgres: postgres gateway 127.0.0.1(3) idle', 640)],
        ['902@2', of(902, EMBEDDED, 'postgres: walwriter', 24)],
        ['903@9', of(903, EMBEDDED, 'postgres: postgres postgres 127.0.0.1(9) idle', 30)],
      ],
    );
    expect(new PostgresCpu({ startedBy: GATEWAY }, read).spent()).toEqual({ run: 630, shared: 22 });
  });

  it('finds no run when no backend serves its databases', () => {
    const read = readings([
      ['100@1', postmaster(MACHINE, 1, 1_000)],
      ['120@6', of(120, MACHINE, 'postgres: 15/main: postgres pgbench_scratch [local] UPDATE', 9_000)],
    ]);
    expect(new PostgresCpu({ databases: [] }, read).spent()).toEqual({ run: 0, shared: 0 });
  });

  it("reads this machine's Postgres processes from /proc", () => {
    const processes = [...postgresProcesses().values()];
    // The integration tests' Postgres runs on this machine: its postmaster and its own processes.
    const postmasters = processes.filter((p) => p.server === p.pid);
    expect(postmasters.length).toBeGreaterThan(0);
    expect(processes.some((p) => p.server !== p.pid && postmasters.some((m) => m.pid === p.server) && p.work.kind === 'shared')).toBe(true);
  });
});
