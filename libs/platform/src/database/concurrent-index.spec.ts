import type { QueryRunner } from 'typeorm';
import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from './concurrent-index';

const INDEX: ConcurrentIndex = {
  name: 'items_note_idx',
  table: 'shop.items',
  keys: '(note) WHERE note IS NOT NULL',
};

/** A QueryRunner that records the SQL and finds an invalid index of that name when told to. */
function runner(invalidIndex: boolean) {
  const sent: string[] = [];
  const queryRunner = {
    query: async (sql: string) => {
      sent.push(sql.replace(/\s+/g, ' ').trim());
      return sql.includes('pg_index') && invalidIndex ? [{ '?column?': 1 }] : [];
    },
  } as unknown as QueryRunner;
  return { queryRunner, sent };
}

describe('createIndexConcurrently', () => {
  it('builds the index concurrently, and not again if it exists', async () => {
    const { queryRunner, sent } = runner(false);
    await createIndexConcurrently(queryRunner, INDEX);
    expect(sent.slice(1)).toEqual([
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS items_note_idx ON shop.items (note) WHERE note IS NOT NULL',
    ]);
  });

  it('drops an invalid index a failed build left before building it again', async () => {
    const { queryRunner, sent } = runner(true);
    await createIndexConcurrently(queryRunner, INDEX);
    expect(sent.slice(1)).toEqual([
      'DROP INDEX CONCURRENTLY IF EXISTS shop.items_note_idx',
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS items_note_idx ON shop.items (note) WHERE note IS NOT NULL',
    ]);
  });

  it.each([
    ['an unqualified table', { ...INDEX, table: 'items' }],
    ['a quoted name', { ...INDEX, name: '"Items"' }],
    ['a table with a database', { ...INDEX, table: 'db.shop.items' }],
  ])('refuses %s', async (_case, index) => {
    await expect(createIndexConcurrently(runner(false).queryRunner, index)).rejects.toThrow(
      /plain name on a schema-qualified table/,
    );
    await expect(dropIndexConcurrently(runner(false).queryRunner, index)).rejects.toThrow(
      /plain name on a schema-qualified table/,
    );
  });
});
