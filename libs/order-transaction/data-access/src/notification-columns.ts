/**
 * The receiver a notification goes to, as SQL: the URL's scheme and authority, lower case (every
 * URL in the outbox starts with https://, a check constraint says so). Computed in SQL only, so
 * the key a claim returns is the key the next claim excludes, and written exactly so in the
 * index on it (notification_outbox_receiver_due_idx): Postgres uses an expression index only
 * for the same expression.
 *
 * The authority keeps the URL's user information (`https://user:password@host`): this key is for
 * grouping and matching, never for logs or metric labels (the dispatcher logs a URL's origin).
 * Dropping it here would change the indexed expression, so a new index and a migration.
 */
export const RECEIVER_SQL = `lower(substring(url from '^https://[^/?#]*'))`;

/**
 * A notification that announced an UNKNOWN outcome (its payload is the stored response, whose
 * `result` the ledger owns). Written exactly so in the partial index on it
 * (notification_outbox_unknown_idx) and in the query that reads it: Postgres uses a partial
 * index only for a query whose condition implies the index's.
 */
export const UNKNOWN_ANNOUNCEMENT_SQL = `(payload ->> 'result') = 'UNKNOWN'`;
