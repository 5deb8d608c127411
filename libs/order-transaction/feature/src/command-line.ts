import type { CommandIo } from './operator-commands';

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
