/**
 * A CHECK that `column` holds one of `values`, written as one text[] constant rather than as
 * `IN (...)`. Postgres reads every CHECK of a table back from its stored node text at each write
 * statement; `IN (...)` on a varchar column is stored as an array built from a cast of each value
 * (2.7 KB of text for the ledger's eleven statuses), which it then folds back into a constant,
 * each time. The constant needs no folding (docs/performance.md, "Tuning done";
 * LedgerChecksAsConstants1765000000000, TokenChecksAsConstants1765100000000). The values are plain
 * codes, which an array literal takes unquoted.
 */
export function oneOfCheck(column: string, values: readonly string[]): string {
  const unfit = values.find((value) => !/^[A-Z][A-Z_]*$/.test(value));
  if (unfit !== undefined) {
    throw new Error(`${column}'s check takes upper-case codes only, got ${JSON.stringify(unfit)}`);
  }
  return `${column} = ANY ('{${values.join(',')}}'::text[])`;
}
