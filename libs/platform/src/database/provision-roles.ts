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
      const literal = (await client.query<{ q: string }>('SELECT quote_literal($1) AS q', [password])).rows[0].q;
      await client.query(`${exists.rowCount ? 'ALTER' : 'CREATE'} ROLE "${role}" LOGIN PASSWORD ${literal}`);
      await client.query(`GRANT CONNECT ON DATABASE "${database}" TO "${role}"`);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}" AUTHORIZATION "${role}"`);
      await client.query(`ALTER SCHEMA "${schema}" OWNER TO "${role}"`);
      await client.query(`REVOKE ALL ON SCHEMA "${schema}" FROM PUBLIC`);
    }
  } finally {
    await client.end();
  }
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
