import { pendingSchemaChanges } from '@gateway/platform';
import { openTestDataSource } from '@gateway/testing';
import { SERVICE_SCHEMAS } from './service-schemas';

/**
 * The schema changes only through reviewed SQL migrations; this fails the build when an entity
 * was changed without one (or a migration without its entity), like a pending-migrations check.
 */
describe.each(SERVICE_SCHEMAS.map((s) => [s.schema, s] as const))('schema %s', (_name, schema) => {
  it('has migrations that match its entities exactly', async () => {
    const dataSource = await openTestDataSource(schema, 2);
    try {
      expect(await pendingSchemaChanges(dataSource)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('runs its migrations once when several runners start together', async () => {
    const runners = await Promise.all([1, 2, 3].map(() => openTestDataSource(schema, 1)));
    try {
      const applied: { count: string }[] = await runners[0].query(
        `SELECT count(*) AS count FROM "${schema.schema}".schema_migrations`,
      );
      expect(Number(applied[0].count)).toBe(schema.migrations.length);
    } finally {
      await Promise.all(runners.map((r) => r.destroy()));
    }
  });
});
