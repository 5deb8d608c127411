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

/** Each problem as `<migration>: <what is wrong>: <statement>`; empty when the migration is safe on a table in use. */
export function unsafeStatements(migration: RecordedMigration): string[] {
  const created = new Set(
    migration.statements.flatMap((s) => [...s.matchAll(CREATE_TABLE)].map((m) => tableName(m[1]))),
  );
  const altered = new Set<string>();
  return migration.statements.flatMap((statement) =>
    [
      ...indexProblems(statement, created, migration.inTransaction),
      ...alterProblems(statement, created, altered, migration.inTransaction),
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
      : clauseProblem(clause, `${table}, a table it did not create,`);
    if (problem) {
      problems.push(problem);
    }
  }
  return problems;
}

function clauseProblem(clause: string, on: string): string | undefined {
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
  return undefined;
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
