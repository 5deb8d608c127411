import { Client, ClientConfig } from 'pg';

/**
 * Longest a readiness query runs on the server. `SELECT 1` takes microseconds on a database
 * that serves; one that takes longer is not ready either.
 */
export const HEALTH_STATEMENT_TIMEOUT_MS = 1_000;
/** Longest the client waits for the answer: a connection that went silent is then dropped and opened again. */
export const HEALTH_QUERY_TIMEOUT_MS = 2_000;

/**
 * The readiness check's own Postgres session, beside the service's pool. Through the pool, the
 * check's `SELECT 1` would wait behind the requests queued for a connection, the designed
 * backlog under load (up to about a second deep at the cap), and the service would turn unready
 * exactly when busy: a rolling deploy's new pods never Ready, the HPA leaving their CPU out.
 * Opened at the first check, dropped on any error and opened again at the next check, so a
 * database that is down or unreachable still fails the check.
 */
export class DatabaseHealthSession {
  private session?: { client: Client; connected: Promise<Client> };
  private closed = false;

  constructor(private readonly config: ClientConfig) {}

  async ping(): Promise<void> {
    const client = await this.connected();
    try {
      await client.query('SELECT 1');
    } catch (err) {
      this.drop(client);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.session?.client;
    this.session = undefined;
    await client?.end().catch(() => undefined);
  }

  private connected(): Promise<Client> {
    if (this.closed) {
      return Promise.reject(new Error('the database health session is closed'));
    }
    if (!this.session) {
      const client = new Client({
        ...this.config,
        statement_timeout: HEALTH_STATEMENT_TIMEOUT_MS,
        query_timeout: HEALTH_QUERY_TIMEOUT_MS,
      });
      // Each event names its client: one already replaced is no longer heard.
      client.on('error', () => this.drop(client));
      client.on('end', () => this.drop(client));
      const connected = client.connect().then(
        () => client,
        (err: unknown) => {
          this.drop(client);
          throw err;
        },
      );
      this.session = { client, connected };
    }
    return this.session.connected;
  }

  private drop(client: Client): void {
    if (this.session?.client === client) {
      this.session = undefined;
    }
    client.end().catch(() => undefined);
  }
}
