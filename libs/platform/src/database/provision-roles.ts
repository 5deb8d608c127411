import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface ServiceRole {
  schema: string;
  role: string;
  password: string;
}

/**
 * The distributed profile's database layout: one login role per service, owning its schema
 * and nothing else, so a service's credentials cannot read another service's tables. Run
 * with an administrator connection (the Kubernetes migration Job's bootstrap step, or a test
 * harness). Idempotent: existing roles get the given password, existing schemas are adopted.
 * The passwords never reach the server: each role gets its SCRAM verifier (scramSha256Verifier).
 */
export async function provisionServiceRoles(adminDatabaseUrl: string, roles: ServiceRole[]): Promise<void> {
  const client = new Client({ connectionString: adminDatabaseUrl });
  await client.connect();
  try {
    const database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db;
    for (const { schema, role, password } of roles) {
      assertIdentifier(schema);
      assertIdentifier(role);
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      // The role's SCRAM verifier, not its password: Postgres stores a verifier given as is, and
      // the statement's text is what log_statement=ddl (and an error's STATEMENT line) logs.
      await client.query(`${exists.rowCount ? 'ALTER' : 'CREATE'} ROLE "${role}" LOGIN PASSWORD '${scramSha256Verifier(password)}'`);
      await client.query(`GRANT CONNECT ON DATABASE "${database}" TO "${role}"`);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}" AUTHORIZATION "${role}"`);
      await client.query(`ALTER SCHEMA "${schema}" OWNER TO "${role}"`);
      await client.query(`REVOKE ALL ON SCHEMA "${schema}" FROM PUBLIC`);
    }
  } finally {
    await client.end();
  }
}

/**
 * What Postgres stores for a SCRAM-SHA-256 password (RFC 5802, RFC 7677), computed here so the
 * password itself is never sent: `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`,
 * base64, as Postgres writes it (16-byte salt, 4096 iterations: its scram_iterations default).
 * The password is normalized as the services' client (node-postgres) normalizes it before
 * deriving its proof (SASLprep's mappings and NFKC; ASCII passwords are unchanged), so they log
 * in with it. Only base64, digits, `$` and `:`: nothing in it needs quoting in a literal.
 */
export function scramSha256Verifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(saslPrepared(password), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** RFC 4013's mappings (non-ASCII spaces to a space, RFC 3454 B.1 to nothing), then NFKC: node-postgres' SASLprep. */
function saslPrepared(password: string): string {
  return (
    password
      .replace(/[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g, ' ')
      .replace(/[\u00AD\u034F\u1806\u180B\u180C\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/g, '')
      .normalize('NFKC')
  );
}

export async function dropServiceRoles(adminUrl: string, roles: string[]): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const role of roles) {
      assertIdentifier(role);
      await client.query(`DROP ROLE IF EXISTS "${role}"`);
    }
  } finally {
    await client.end();
  }
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`not a plain identifier: ${name}`);
  }
}
