import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The statements of a migration that would stall a table in use: what the migration guard
 * (migration-safety.spec.ts) looks for in every service's migrations. Statements on a table
 * the same migration creates are fine (nobody uses it yet); see
 * docs/decisions/migrations-on-a-live-database.md for why each rule matters.
 */

/** What a migration's `up` sends, as the guard reads it. */
export interface RecordedMigration {
  name: string;
  /** migrateSchema (transaction mode 'each') runs a migration in a transaction unless it says `transaction = false`. */
  inTransaction: boolean;
  /** Its statements in order, whitespace folded. */
  statements: string[];
}

/**
 * Runs `up` against a fake QueryRunner that records the SQL and answers every query with no
 * rows (a catalog lookup finds nothing, as on a fresh database). Migrations here are plain
 * SQL: any other use of the QueryRunner fails loudly rather than hiding statements.
 */
export async function recordMigration(migration: MigrationInterface): Promise<RecordedMigration> {
  const name = migration.name ?? migration.constructor.name;
  const statements: string[] = [];
  const query = async (sql: string): Promise<unknown[]> => {
    statements.push(...splitTopLevel(sql.replace(/\s+/g, ' '), ';'));
    return [];
  };
  const queryRunner = new Proxy(
    { query },
    {
      get(target, key) {
        if (key === 'query') {
          return target.query;
        }
        if (typeof key === 'symbol') {
          return undefined;
        }
        throw new Error(
          `${name} uses queryRunner.${key}: the migration guard reads plain SQL migrations only`,
        );
      },
    },
  );
  await migration.up(queryRunner as unknown as QueryRunner);
  return { name, inTransaction: migration.transaction !== false, statements };
}

/**
 * Each problem as `<migration>: <what is wrong>: <statement>`; empty when the migration is safe on
 * a table in use. `earlier` are the service's migrations before it, in order: a SET NOT NULL is
 * safe once one of them has validated a CHECK (<column> IS NOT NULL) on the table.
 */
export function unsafeStatements(migration: RecordedMigration, earlier: RecordedMigration[] = []): string[] {
  const created = new Set(
    migration.statements.flatMap((s) => [...s.matchAll(CREATE_TABLE)].map((m) => tableName(m[1]))),
  );
  const altered = new Set<string>();
  const notNullChecked = validatedNotNullChecks(earlier);
  return migration.statements.flatMap((statement) =>
    [
      ...indexProblems(statement, created, migration.inTransaction),
      ...alterProblems(statement, created, altered, migration.inTransaction, notNullChecked),
    ].map((problem) => `${migration.name}: ${problem}: ${statement}`),
  );
}

const CREATE_TABLE = /\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w."]+)/gi;
const CREATE_INDEX =
  /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(?:[\w"]+\s+)?ON\s+(?:ONLY\s+)?([\w."]+)/i;
const ALTER_TABLE = /^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?([\w."]+)\s+(.*)$/i;
const ADD_TABLE_CONSTRAINT =
  /^ADD\s+(?:CONSTRAINT\s+[\w"]+\s+)?(CHECK|FOREIGN\s+KEY|UNIQUE|PRIMARY\s+KEY|EXCLUDE)\b/i;
const COLUMN_CONSTRAINT = /\b(CHECK|REFERENCES|UNIQUE|PRIMARY\s+KEY)\b/i;

/** A plain CREATE INDEX blocks the table's writes for the whole build; CONCURRENTLY runs only outside a transaction. */
function indexProblems(statement: string, created: Set<string>, inTransaction: boolean): string[] {
  const index = CREATE_INDEX.exec(statement);
  if (!index || created.has(tableName(index[2]))) {
    return [];
  }
  if (!index[1]) {
    return [
      `CREATE INDEX on ${tableName(index[2])}, a table it did not create, without CONCURRENTLY (blocks the table's writes for the whole build)`,
    ];
  }
  return inTransaction
    ? [
        'CREATE INDEX CONCURRENTLY in a migration without `transaction = false` (Postgres refuses it in a transaction)',
      ]
    : [];
}

/**
 * ALTER TABLE takes an exclusive lock until its transaction ends: a constraint checked against
 * every row, or a unique index built, under it stalls the table for as long as that takes.
 */
function alterProblems(
  statement: string,
  created: Set<string>,
  altered: Set<string>,
  inTransaction: boolean,
  notNullChecked: Set<string>,
): string[] {
  const alter = ALTER_TABLE.exec(statement);
  if (!alter) {
    return [];
  }
  const table = tableName(alter[1]);
  const problems: string[] = [];
  for (const clause of splitTopLevel(alter[2], ',')) {
    if (/^VALIDATE\s+CONSTRAINT\b/i.test(clause)) {
      if (inTransaction && altered.has(table)) {
        problems.push(
          `VALIDATE CONSTRAINT in the transaction that altered ${table}: the ALTER's exclusive lock is held through the scan (validate in a migration of its own)`,
        );
      }
      continue;
    }
    altered.add(table);
    const problem = created.has(table)
      ? undefined
      : clauseProblem(clause, table, `${table}, a table it did not create,`, notNullChecked);
    if (problem) {
      problems.push(problem);
    }
  }
  return problems;
}

function clauseProblem(clause: string, table: string, on: string, notNullChecked: Set<string>): string | undefined {
  const keywords = clause.replace(/'(?:[^']|'')*'/g, "''");
  const constraint = ADD_TABLE_CONSTRAINT.exec(keywords);
  if (constraint && /^(CHECK|FOREIGN)/i.test(constraint[1])) {
    return /\bNOT\s+VALID$/i.test(keywords)
      ? undefined
      : `ADD ${constraint[1].toUpperCase()} on ${on} without NOT VALID (checks every row under an exclusive lock; add it NOT VALID and VALIDATE it in a migration of its own)`;
  }
  if (constraint) {
    return /\bUSING\s+INDEX\b/i.test(keywords)
      ? undefined
      : `ADD ${constraint[1].toUpperCase()} on ${on} without USING INDEX (builds its index under an exclusive lock; build it CONCURRENTLY first)`;
  }
  if (/^ADD\s/i.test(keywords) && COLUMN_CONSTRAINT.test(keywords)) {
    return `a constraint on a new column of ${on} (checked against every row under an exclusive lock; add the column bare, then the constraint NOT VALID)`;
  }
  const column = ADD_COLUMN.exec(keywords);
  if (column) {
    return newColumnProblem(column[2], on);
  }
  const setNotNull = SET_NOT_NULL.exec(keywords);
  if (setNotNull && !notNullChecked.has(`${table}.${columnName(setNotNull[1])}`)) {
    return (
      `SET NOT NULL on ${on} without a validated CHECK (${columnName(setNotNull[1])} IS NOT NULL) from an earlier migration ` +
      '(scans every row under an exclusive lock; add that check NOT VALID, VALIDATE it in a migration of its own, then SET NOT NULL, which then skips the scan)'
    );
  }
  return undefined;
}

/** ADD [COLUMN] [IF NOT EXISTS] name ...: table constraints were told apart before (ADD_TABLE_CONSTRAINT). */
const ADD_COLUMN = /^ADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?("?\w+"?)\s+(.*)$/i;
const SET_NOT_NULL = /^ALTER\s+(?:COLUMN\s+)?("?\w+"?)\s+SET\s+NOT\s+NULL$/i;
/** Where a column's DEFAULT expression ends: the next column constraint. */
const AFTER_DEFAULT = /\b(?:NOT\s+NULL|NULL|CONSTRAINT|COLLATE|GENERATED)\b/i;
/**
 * Functions Postgres evaluates once for an ADD COLUMN's default, storing the value for every
 * existing row without writing them (stable or immutable); any other call may be volatile
 * (random(), gen_random_uuid(), clock_timestamp(), nextval(), a function of ours) and is flagged.
 */
const NON_VOLATILE_DEFAULT_CALLS = new Set([
  'now',
  'transaction_timestamp',
  'statement_timestamp',
  'cast',
  // `'…'::character varying(4)`: the second word of a cast's type, not a call.
  'varying',
]);

/**
 * A column added to a table in use. With a volatile default, as a serial, an identity or a stored
 * generated column, Postgres writes every existing row under the ALTER's exclusive lock (reads
 * and writes of the table wait for the whole rewrite). NOT NULL without a default cannot hold for
 * the rows already there: Postgres refuses the ALTER on a table with rows, which the empty
 * databases of the tests never have, so only the release's migration Job finds out.
 */
function newColumnProblem(definition: string, on: string): string | undefined {
  const rewrite = `(Postgres writes every row under the exclusive lock; add it nullable without that default, SET DEFAULT for new rows, and fill the old ones in batches)`;
  const type = /^("?\w+"?)/.exec(definition)?.[1].replace(/"/g, '').toLowerCase() ?? '';
  if (/^(?:small|big)?serial[248]?$/.test(type)) {
    return `a ${type} column added to ${on} ${rewrite}`;
  }
  if (/\bGENERATED\b.*\b(?:IDENTITY|STORED)\b/i.test(definition)) {
    return `an identity or stored generated column added to ${on} ${rewrite}`;
  }
  const defaultAt = /\bDEFAULT\b/i.exec(definition);
  if (defaultAt) {
    const rest = definition.slice(defaultAt.index + defaultAt[0].length);
    const end = AFTER_DEFAULT.exec(rest);
    const expression = end ? rest.slice(0, end.index) : rest;
    for (const call of expression.matchAll(/(::\s*|\bAS\s+)?([A-Za-z_][\w.]*)\s*\(/gi)) {
      const name = call[2].toLowerCase().replace(/^pg_catalog\./, '');
      if (!call[1] && !NON_VOLATILE_DEFAULT_CALLS.has(name)) {
        return `a new column of ${on} whose default calls ${call[2]}(), which may be volatile ${rewrite}`;
      }
    }
    return undefined;
  }
  if (/\bNOT\s+NULL\b/i.test(definition)) {
    return `a NOT NULL column without a default added to ${on} (Postgres refuses it on a table with rows, so only a database in use finds out; add it with a constant DEFAULT, or nullable)`;
  }
  return undefined;
}

/**
 * `table.column` of every CHECK (column IS NOT NULL) the migrations in `earlier` left valid on a
 * table (added valid, or added NOT VALID and validated later; not dropped since): with one,
 * Postgres takes SET NOT NULL from the check instead of scanning the table.
 */
function validatedNotNullChecks(earlier: RecordedMigration[]): Set<string> {
  const checks = new Map<string, { column: string; valid: boolean }>();
  for (const statement of earlier.flatMap((m) => m.statements)) {
    const alter = ALTER_TABLE.exec(statement);
    if (!alter) {
      continue;
    }
    const table = tableName(alter[1]);
    for (const clause of splitTopLevel(alter[2], ',')) {
      const added = /^ADD\s+CONSTRAINT\s+("?\w+"?)\s+CHECK\s*\(\s*\(?\s*("?\w+"?)\s+IS\s+NOT\s+NULL\s*\)?\s*\)(\s+NOT\s+VALID)?$/i.exec(clause);
      const validated = /^VALIDATE\s+CONSTRAINT\s+("?\w+"?)$/i.exec(clause);
      const dropped = /^DROP\s+CONSTRAINT\s+(?:IF\s+EXISTS\s+)?("?\w+"?)/i.exec(clause);
      if (added) {
        checks.set(`${table}.${columnName(added[1])}`, { column: columnName(added[2]), valid: !added[3] });
      } else if (validated) {
        const check = checks.get(`${table}.${columnName(validated[1])}`);
        if (check) check.valid = true;
      } else if (dropped) {
        checks.delete(`${table}.${columnName(dropped[1])}`);
      }
    }
  }
  return new Set(
    [...checks].filter(([, check]) => check.valid).map(([key, check]) => `${key.slice(0, key.lastIndexOf('.'))}.${check.column}`),
  );
}

function columnName(identifier: string): string {
  return identifier.replace(/"/g, '').toLowerCase();
}

function tableName(identifier: string): string {
  return identifier.replace(/"/g, '').toLowerCase();
}

/** Splits at `separator` outside parentheses and quotes; trimmed, empty parts dropped. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      quote = c === quote ? undefined : quote;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '(' || c === ')') {
      depth += c === '(' ? 1 : -1;
    } else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}
