import { causesOf } from './error-causes';

/**
 * Postgres could not take the statement: no connection free in the pool within its timeout,
 * the server refusing or dropping connections, out of connection slots, shutting down or still
 * starting. The statement did not run, or its transaction was rolled back with the connection,
 * or (a connection lost under a COMMIT, or under a statement committing on its own) it committed
 * and only its answer was lost: mayHaveCommitted. Either way the request may be retried as it
 * is (the ledger answers a retried transaction id as a replay). Anything else from the database
 * (a constraint, a syntax error) is not this.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '53300', // too_many_connections
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08006', // connection_failure
]);

/** Those of UNAVAILABLE_CODES raised while connecting: nothing was sent. */
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', '53300', '57P03', '08001']);

/** pg-pool's error when no connection became free within connectionTimeoutMillis. */
const POOL_TIMEOUT = 'timeout exceeded when trying to connect';
/**
 * node-pg's errors when the server closed the connection: under a query, or before it (the
 * client saw the connection fail, or closed, and refuses the query without sending it).
 */
const CONNECTION_TERMINATED = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

export function isDatabaseUnavailable(err: unknown): boolean {
  return causesOf(err).some(
    ({ code, message }) =>
      (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || message === POOL_TIMEOUT || (typeof message === 'string' && CONNECTION_TERMINATED.test(message)),
  );
}

/**
 * The database became unavailable after the statement may have reached it (a reset or
 * terminated connection, not a pool timeout or a refused connection): a write that was a
 * COMMIT, or a single statement committing on its own, may have committed with only its answer
 * lost. Whoever must know reads again (docs/decisions/database-unavailable-is-server-busy.md,
 * amendment of 2026-11-26).
 */
export function mayHaveCommitted(err: unknown): boolean {
  return (
    isDatabaseUnavailable(err) &&
    !causesOf(err).some(({ code, message }) => (typeof code === 'string' && NOT_CONNECTED_CODES.has(code)) || message === POOL_TIMEOUT)
  );
}
