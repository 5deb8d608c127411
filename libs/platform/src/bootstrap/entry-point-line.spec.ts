import { answerEntryPointLine, ENTRY_POINT_USAGE_ERROR, EntryPointUsage } from './entry-point-line';

const USAGE: EntryPointUsage = {
  command: 'node dist/apps/ledger/src/main.js',
  what: 'ledger: the order ledger.',
  settings: 'docs/operations/configuration.md (ledger)',
  commands: [
    { name: 'migrate', rest: '', what: 'apply the migrations, then exit', readsItsLine: false },
    { name: 'transactions', rest: 'unresolved ...', what: 'transactions to reconcile', readsItsLine: true },
  ],
};

function answer(argv: string[]): { code: number | undefined; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const code = answerEntryPointLine(argv, USAGE, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, out, err };
}

describe('answerEntryPointLine', () => {
  it('leaves the line with no argument to the entry point: it serves', () => {
    expect(answer([])).toEqual({ code: undefined, out: [], err: [] });
  });

  it('prints what the process is, where its settings are listed and what it takes for --help, and exits 0', () => {
    for (const help of ['--help', '-h']) {
      const { code, out, err } = answer([help]);
      expect([code, err]).toEqual([0, []]);
      const text = out.join('\n');
      expect(text).toContain('Usage: node dist/apps/ledger/src/main.js [migrate | transactions ...]');
      expect(text).toContain('ledger: the order ledger.');
      expect(text).toContain('docs/operations/configuration.md (ledger)');
      expect(text).toContain('(its own usage: transactions --help)');
      expect(text).toContain(`Exit code ${ENTRY_POINT_USAGE_ERROR}`);
    }
  });

  it('refuses an argument it does not take with exit code 64, naming it', () => {
    for (const argv of [['--port=9000'], ['serve'], ['help'], ['--help-me']]) {
      expect(answer(argv)).toEqual({
        code: 64,
        out: [],
        err: [`error: unknown argument '${argv[0]}'. Run with --help.`],
      });
    }
  });

  it('leaves its commands to the entry point, and an operator command its whole line, --help included', () => {
    expect(answer(['migrate']).code).toBeUndefined();
    expect(answer(['transactions']).code).toBeUndefined();
    expect(answer(['transactions', '--help']).code).toBeUndefined();
    expect(answer(['transactions', 'unresolved', '--bogus']).code).toBeUndefined();
  });

  it('refuses an argument after a command that takes none, and shows its usage for --help there', () => {
    expect(answer(['migrate', 'now'])).toEqual({
      code: 64,
      out: [],
      err: ["error: unknown 'now' after migrate, which takes no argument. Run with --help."],
    });
    const { code, out } = answer(['migrate', '--help']);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('apply the migrations, then exit');
  });
});
