/**
 * The receiver a notification goes to, as SQL: the URL's scheme and authority, lower case (every
 * URL in the outbox starts with https://, a check constraint says so). Computed in SQL only, so
 * the key a claim returns is the key the next claim excludes, and written exactly so in the
 * index on it (notification_outbox_receiver_due_idx): Postgres uses an expression index only
 * for the same expression.
 */
export const RECEIVER_SQL = `lower(substring(url from '^https://[^/?#]*'))`;
