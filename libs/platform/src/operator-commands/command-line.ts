/** An operator command's terminal: its answer on stdout, its errors on stderr. */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const stdio: CommandIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/**
 * An operator command's line parsed by `parse`, or undefined once its mistake is printed as a
 * usage error (the command then exits 2): node's parseArgs throws on an unknown option or a
 * missing value, which must not surface as a crash.
 */
export function parsedOrUsageError<T>(io: CommandIo, parse: () => T): T | undefined {
  try {
    return parse();
  } catch (err) {
    io.err(`error: ${(err as Error).message}. Run with --help.`);
    return undefined;
  }
}

/**
 * An operator command's line, or what the command answers from the line alone, before any
 * database is opened: its usage for `--help` (0) or when no subcommand is named (2), a usage
 * error for a line that does not parse (2).
 */
export function lineOrAnswer<T extends { values: { help?: boolean }; positionals: string[] }>(io: CommandIo, parse: () => T, usage: string): T | number {
  const parsed = parsedOrUsageError(io, parse);
  if (!parsed) {
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    io.out(usage);
    return parsed.values.help ? 0 : 2;
  }
  return parsed;
}

/** A subcommand's own options (`--json` and `--help` go with every one) and how many words its line holds, its name included. */
export interface SubcommandSpec {
  readonly options: readonly string[];
  readonly positionals: number;
}

/**
 * lineOrAnswer for a command of subcommands, which also refuses (exit code 2, no database opened)
 * an unknown subcommand and a line its subcommand does not read all of (subcommandMisuse).
 */
export function subcommandLineOrAnswer<T extends { values: Record<string, unknown> & { help?: boolean }; positionals: string[] }>(
  io: CommandIo,
  parse: () => T,
  usage: string,
  subcommands: Readonly<Record<string, SubcommandSpec>>,
): T | number {
  const line = lineOrAnswer(io, parse, usage);
  if (typeof line === 'number') {
    return line;
  }
  const [subcommand] = line.positionals;
  const problem = Object.hasOwn(subcommands, subcommand)
    ? subcommandMisuse(subcommand, line.values, line.positionals, subcommands[subcommand])
    : `unknown command '${subcommand}'`;
  if (problem) {
    io.err(`error: ${problem}. Run with --help.`);
    return 2;
  }
  return line;
}

/**
 * What is wrong with a subcommand's line once it parsed, if anything: an option of another
 * subcommand, or a positional argument beyond `positionals` (the subcommand's name included).
 * node's parseArgs knows every subcommand's options at once, so without this `transactions
 * resolve ... --dry-run` parsed and resolved for real, and `notifications resend --merchant M
 * --limit 5` queued every failed notification of the merchant: an option given is either read
 * or refused (exit code 2), never ignored. `--json` and `--help` go with every subcommand.
 */
export function subcommandMisuse(
  subcommand: string,
  values: Record<string, unknown>,
  positionals: string[],
  spec: SubcommandSpec,
): string | undefined {
  const ignored = Object.keys(values).find(
    (name) => name !== 'json' && name !== 'help' && !spec.options.includes(name) && values[name] !== undefined && values[name] !== false,
  );
  if (ignored) {
    return `${subcommand} does not take --${ignored}`;
  }
  if (positionals.length > spec.positionals) {
    const extra = positionals.slice(spec.positionals).map((a) => `'${a}'`).join(' ');
    return `${subcommand} takes ${spec.positionals === 1 ? 'no argument' : `${spec.positionals - 1} argument${spec.positionals === 2 ? '' : 's'}`}, not ${extra}`;
  }
  return undefined;
}
