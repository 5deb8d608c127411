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
