import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** What a pg client answers: node-pg's QueryResult, only as far as we read it. */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * A hot statement of fixed text, sent as a named prepared statement on the connection the
 * EntityManager uses: Postgres parses and plans it once per connection instead of on every
 * execution (TypeORM's `query` sends every statement unnamed). For the ledger's CTE writes
 * that is most of their database CPU (docs/performance.md). The name is derived from the
 * text, so two statements can never share one. Inside a transaction the statement runs on
 * the transaction's connection; outside, on a pooled connection in autocommit, like
 * `manager.query`. Errors are node-pg's own (code, constraint), not TypeORM's QueryFailedError.
 */
export class PreparedStatement {
  readonly name: string;

  constructor(readonly text: string) {
    this.name = `gw_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  }

  /** The rows the statement returns (none for a statement without RETURNING). */
  async rows<R>(manager: EntityManager, values: unknown[]): Promise<R[]> {
    return (await this.run(manager, values)).rows as R[];
  }

  /** How many rows the statement wrote or returned. */
  async rowCount(manager: EntityManager, values: unknown[]): Promise<number> {
    return (await this.run(manager, values)).rowCount ?? 0;
  }

  private async run(manager: EntityManager, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }> {
    const inTransaction = manager.queryRunner;
    const runner = inTransaction ?? manager.connection.createQueryRunner();
    try {
      const client = (await runner.connect()) as PgClient;
      return await client.query({ name: this.name, text: this.text, values });
    } finally {
      if (!inTransaction) {
        await runner.release();
      }
    }
  }
}
