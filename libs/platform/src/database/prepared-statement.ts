import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

interface QueryResult {
  rows: unknown[];
  rowCount: number | null;
}

/** node-pg's Client, as far as we use it; `connection.parsedStatements` is its cache of prepared names. */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] } | string): Promise<QueryResult>;
  connection: { parsedStatements: Record<string, string> };
}

/**
 * A statement's plan goes stale for the connections that prepared it when a migration (run by
 * another replica, during a rolling deploy) changes the type of a column it returns: Postgres
 * then refuses to run it there ("cached plan must not change result type") until it is prepared
 * again. Each statement has a generation, moved on by the first connection that meets the
 * refusal; every connection that prepared it at an older generation deallocates it before its
 * next use, so it is prepared afresh.
 */
const generations = new Map<string, number>();
const preparedAt = new WeakMap<PgClient, Map<string, number>>();

export function isStalePlanError(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/**
 * A hot statement of fixed text, sent as a named prepared statement on the connection the
 * EntityManager uses: Postgres parses and plans it once per connection instead of on every
 * execution (TypeORM's `query` sends every statement unnamed). For the ledger's CTE writes
 * that is most of their database CPU (docs/performance.md). The name is derived from the
 * text, so two statements can never share one. Inside a transaction the statement runs on
 * the transaction's connection; outside, on a pooled connection in autocommit, like
 * `manager.query`. Errors are node-pg's own (code, constraint), not TypeORM's QueryFailedError.
 * A plan gone stale under a migration is prepared again: at once outside a transaction; inside
 * one, which the refusal aborted, by `inTransaction`'s one retry of the whole transaction.
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

  private async run(manager: EntityManager, values: unknown[]): Promise<QueryResult> {
    // A manager bound to a query runner runs on that runner's connection, in a transaction or
    // holding it in autocommit (onConnection); only a transaction's is aborted by a refusal.
    const held = manager.queryRunner;
    const inTransaction = held?.isTransactionActive === true;
    const runner = held ?? manager.connection.createQueryRunner();
    try {
      const client = (await runner.connect()) as PgClient;
      try {
        return await this.execute(client, values);
      } catch (err) {
        if (!isStalePlanError(err)) {
          throw err;
        }
        generations.set(this.name, this.generation() + 1);
        if (inTransaction) {
          throw err;
        }
        return await this.execute(client, values);
      }
    } finally {
      if (!held) {
        await runner.release();
      }
    }
  }

  private async execute(client: PgClient, values: unknown[]): Promise<QueryResult> {
    const generation = this.generation();
    let prepared = preparedAt.get(client);
    if (!prepared) {
      prepared = new Map();
      preparedAt.set(client, prepared);
    }
    const at = prepared.get(this.name);
    if (at !== undefined && at < generation && client.connection.parsedStatements[this.name] !== undefined) {
      await client.query(`DEALLOCATE ${this.name}`);
      delete client.connection.parsedStatements[this.name];
    }
    // Noted before it runs: a statement whose first run fails (a unique violation, say) stays
    // prepared on the connection all the same, and must be refreshed like any other.
    prepared.set(this.name, generation);
    return client.query({ name: this.name, text: this.text, values });
  }

  private generation(): number {
    return generations.get(this.name) ?? 0;
  }
}

/**
 * `dataSource.transaction(work)`, run once more if a prepared statement's plan had gone stale
 * under a migration (the refusal aborts the transaction before anything is committed, and the
 * retry prepares the statement afresh). `work` must only touch the database, which is the rule
 * for every transaction here anyway: nothing leaves the process while rows are locked.
 */
export async function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  try {
    return await dataSource.transaction(work);
  } catch (err) {
    if (!isStalePlanError(err)) {
      throw err;
    }
    return dataSource.transaction(work);
  }
}

/**
 * Autocommit statements on one connection of the pool, held from before `work`'s first statement
 * to after its last. `connected` runs once the connection is held, before any statement, and may
 * refuse by throwing: then nothing is sent. For a write that must not begin after some time (an
 * operation's deadline), a check made there comes after the wait for the connection, which under
 * load is the pool's queue (docs/decisions/operation-deadline.md).
 */
export async function onConnection<T>(dataSource: DataSource, connected: () => void, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    connected();
    return await work(runner.manager);
  } finally {
    await runner.release();
  }
}
