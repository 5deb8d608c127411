import { QueryRunner } from 'typeorm';

/** An index built on a table that is in use. */
export interface ConcurrentIndex {
  /** The index's name (plain identifier); Postgres puts the index in its table's schema. */
  name: string;
  /** The table, schema-qualified: `schema.table`. */
  table: string;
  /** What follows the table in CREATE INDEX: the key columns and any WHERE predicate. */
  keys: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Builds an index with CREATE INDEX CONCURRENTLY, which takes no lock that blocks the table's
 * writes (a plain CREATE INDEX blocks them for the whole build). Postgres runs it only outside
 * a transaction, so its migration says `transaction = false`. A concurrent build that fails
 * part-way (lock timeout, cancel) leaves an INVALID index of that name, which Postgres keeps
 * updating but never reads: this drops such a leftover first, so a retry ends with a valid
 * index. IF NOT EXISTS makes a rerun after a build that succeeded but was not recorded a no-op.
 */
export async function createIndexConcurrently(
  queryRunner: QueryRunner,
  index: ConcurrentIndex,
): Promise<void> {
  const { schema } = qualifiedName(index);
  const invalid = await queryRunner.query(
    `SELECT 1 FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = $2 AND NOT i.indisvalid`,
    [schema, index.name],
  );
  if (invalid.length > 0) {
    await dropIndexConcurrently(queryRunner, index);
  }
  await queryRunner.query(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.table} ${index.keys}`,
  );
}

/** Drops an index without blocking its table's reads and writes meanwhile (outside a transaction too). */
export async function dropIndexConcurrently(
  queryRunner: QueryRunner,
  index: Pick<ConcurrentIndex, 'name' | 'table'>,
): Promise<void> {
  const { schema, name } = qualifiedName(index);
  await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${schema}.${name}`);
}

function qualifiedName(index: Pick<ConcurrentIndex, 'name' | 'table'>): { schema: string; name: string } {
  const parts = [...index.table.split('.'), index.name];
  if (parts.length !== 3 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new Error(
      `An index needs a plain name on a schema-qualified table, got ${index.name} on ${index.table}`,
    );
  }
  return { schema: parts[0], name: index.name };
}
