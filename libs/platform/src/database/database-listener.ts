import { Client, ClientConfig } from 'pg';

export interface DatabaseListenerHandlers {
  /**
   * LISTEN is in effect, at start or again after a lost connection: what was notified while it
   * was not is lost, so whatever the notifications keep fresh is to be taken as changed.
   * `backendPid`: the session's server process (pg_stat_activity.pid).
   */
  listening(backendPid: number): void;
  notified(payload: string): void;
  /** The connection is gone, or an attempt to open it failed; it is tried again after a pause. */
  lost(err: Error): void;
}

export interface DatabaseListenerOptions {
  channel: string;
  /**
   * Between two `SELECT 1` on the idle session: a connection that died without a word (a
   * network partition, a failover that sent no reset) is noticed within this and the query's
   * timeout, instead of the kernel's keepalive (minutes).
   */
  heartbeatMs?: number;
  /** A heartbeat (or the LISTEN) not answered within this counts as a lost connection. */
  queryTimeoutMs?: number;
  /** The pause before the first attempt after a loss; doubled for each failed one after it, up to `maxRetryMs`. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

const DEFAULTS = { heartbeatMs: 30_000, queryTimeoutMs: 10_000, firstRetryMs: 500, maxRetryMs: 30_000 };

/**
 * One Postgres session that LISTENs on a channel for as long as the process runs: a client of
 * its own (a pooled connection goes back to the pool, and its LISTEN with it), reconnecting
 * after a loss with a growing pause (half of it random, so replicas that lost the database
 * together do not come back in step). Needs a session that stays one server connection: a direct
 * connection, or a session-mode pooler (a transaction-mode one hands the LISTEN's server
 * connection to others, and no notification arrives).
 */
export class DatabaseListener {
  private readonly options: Required<DatabaseListenerOptions>;
  private client?: Client;
  private timer?: NodeJS.Timeout;
  private failures = 0;
  private listening = false;

  constructor(
    private readonly config: ClientConfig,
    options: DatabaseListenerOptions,
    private readonly handlers: DatabaseListenerHandlers,
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Resolves once listening, or once the first attempt failed (tried again in the background). */
  start(): Promise<void> {
    return this.connect();
  }

  get isListening(): boolean {
    return this.listening;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ ...this.config, query_timeout: this.options.queryTimeoutMs });
    this.client = client;
    // Every event names its client: one that was replaced (lost, stopped) is no longer heard.
    client.on('error', (err) => this.lose(client, err));
    client.on('end', () => this.lose(client, new Error('the database connection ended')));
    client.on('notification', (message) => {
      if (this.client === client && message.channel === this.options.channel) {
        this.handlers.notified(message.payload ?? '');
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.options.channel)}`);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      if (this.client !== client) {
        return;
      }
      this.failures = 0;
      this.listening = true;
      this.handlers.listening(rows[0].pid);
      this.heartbeat(client);
    } catch (err) {
      this.lose(client, err instanceof Error ? err : new Error(String(err)));
    }
  }

  private heartbeat(client: Client): void {
    this.timer = setTimeout(() => {
      client.query('SELECT 1').then(
        () => {
          if (this.client === client) {
            this.heartbeat(client);
          }
        },
        (err: Error) => this.lose(client, err),
      );
    }, this.options.heartbeatMs);
    this.timer.unref();
  }

  private lose(client: Client, err: Error): void {
    if (this.client !== client) {
      return;
    }
    this.client = undefined;
    this.listening = false;
    clearTimeout(this.timer);
    void client.end().catch(() => undefined);
    this.handlers.lost(err);
    const pause = Math.min(this.options.firstRetryMs * 2 ** this.failures, this.options.maxRetryMs);
    this.failures++;
    this.timer = setTimeout(() => void this.connect(), pause / 2 + Math.random() * (pause / 2));
    this.timer.unref();
  }
}
