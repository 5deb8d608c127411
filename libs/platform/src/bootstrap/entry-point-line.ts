import type { CommandIo } from '../operator-commands/command-line';

/**
 * The exit code of an app's entry point started with an argument it does not take (sysexits'
 * EX_USAGE, as `rotate-keys` uses for its own usage errors): nothing was started.
 */
export const ENTRY_POINT_USAGE_ERROR = 64;

/** A first argument an entry point takes besides none (none: it serves). */
export interface EntryPointCommand {
  /** The first argument: `migrate`, or an operator command's name. */
  name: string;
  /** What follows it, as its usage shows it ('' when nothing does). */
  rest: string;
  /** What it does, one line. */
  what: string;
  /**
   * The command reads the rest of the line itself (an operator command: its own --help, its own
   * usage errors). Otherwise it takes nothing after its name.
   */
  readsItsLine: boolean;
}

/** What an app's entry point prints for `--help`. */
export interface EntryPointUsage {
  /** How an operator runs it from a checkout: `node dist/apps/<app>/src/main.js`. */
  command: string;
  /** False for an app no image runs (the standalone gateway); the images run `node main.js`. */
  image?: boolean;
  /** What the process is when started with no argument. */
  what: string;
  /** Where its settings are listed (environment variables: the entry point takes none as arguments). */
  settings: string;
  commands: readonly EntryPointCommand[];
}

export function entryPointUsageText(usage: EntryPointUsage): string {
  const names = usage.commands.map((c) => `${c.name}${c.readsItsLine ? ' ...' : ''}`);
  const lines = [
    `Usage: ${usage.command}${names.length > 0 ? ` [${names.join(' | ')}]` : ''}`,
    ...(usage.image === false ? [] : ['       (in the image: node main.js ...)']),
    '',
    ...wrapped(usage.what, ''),
    '',
    ...wrapped(
      `With no argument it serves until stopped (SIGTERM, Ctrl-C). Its settings are environment variables only, listed in ${usage.settings}.`,
      '',
    ),
    '',
    'Arguments:',
    ...usage.commands.flatMap((c) => [
      `  ${c.name}${c.rest ? ` ${c.rest}` : ''}`,
      ...wrapped(c.what, '      '),
      ...(c.readsItsLine ? [`      (its own usage: ${c.name} --help)`] : []),
    ]),
    '  --help',
    '      this text',
    '',
    `Exit code ${ENTRY_POINT_USAGE_ERROR}: an argument this entry point does not take; nothing was started or connected.`,
  ];
  return lines.join('\n');
}

/** `text` in lines of at most 100 characters, each after `indent`. */
function wrapped(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > 100) {
      lines.push(`${indent}${line}`);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, `${indent}${line}`];
}

/**
 * What an app's entry point answers from its arguments alone, before any configuration is read
 * or anything connected: its usage for `--help` or `-h` (exit code 0), a usage error naming an
 * argument it does not take (ENTRY_POINT_USAGE_ERROR). Undefined: the line is the entry point's
 * to run (no argument: serve; `migrate`; an operator command, which reads the rest itself).
 * Without this, `main.js --help` started the app: a service connected to its database and NATS
 * and served, and the standalone gateway started its embedded Postgres.
 */
export function answerEntryPointLine(
  argv: readonly string[],
  usage: EntryPointUsage,
  io: CommandIo,
): number | undefined {
  const [first, ...rest] = argv;
  if (first === undefined) {
    return undefined;
  }
  if (first === '--help' || first === '-h') {
    io.out(entryPointUsageText(usage));
    return 0;
  }
  const command = usage.commands.find((c) => c.name === first);
  if (command?.readsItsLine || (command && rest.length === 0)) {
    return undefined;
  }
  if (command && (rest.includes('--help') || rest.includes('-h'))) {
    io.out(entryPointUsageText(usage));
    return 0;
  }
  const unknown = command
    ? `'${rest[0]}' after ${command.name}, which takes no argument`
    : `argument '${first}'`;
  io.err(`error: unknown ${unknown}. Run with --help.`);
  return ENTRY_POINT_USAGE_ERROR;
}
