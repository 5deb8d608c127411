import { GatewayError } from '@gateway/contracts';
import { loadConfig, provisionServiceRoles, SERVICE_DATABASES, ServiceRole } from '@gateway/platform';
import { ProvisionDatabaseConfig } from './admin.config';

export interface ProvisionedRole {
  app: string;
  schema: string;
  role: string;
}

/**
 * One Postgres role per service, owning its schema and nothing else (ARCHITECTURE section 2):
 * the role and password are the ones in that service's own DATABASE_URL, so the Secrets the
 * apps read are the single source of the credentials. Idempotent: a rerun (every release)
 * resets the passwords to the Secrets' values, which is also how a password is rotated.
 */
export async function provisionDatabase(env: NodeJS.ProcessEnv): Promise<ProvisionedRole[]> {
  const config = loadConfig(ProvisionDatabaseConfig, env);
  const adminDatabase = databaseOf(config.DATABASE_ADMIN_URL);
  const roles: (ServiceRole & { app: string })[] = SERVICE_DATABASES.map(({ app, schema, urlVariable }) => {
    const url = new URL(config[urlVariable]);
    if (!url.username || !url.password) {
      throw GatewayError.invalidRequest(`${urlVariable} must name the service's own user and password.`);
    }
    if (databaseOf(config[urlVariable]) !== adminDatabase) {
      throw GatewayError.invalidRequest(`${urlVariable} names another database than DATABASE_ADMIN_URL.`);
    }
    return { app, schema, role: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  });
  const names = new Set(roles.map((r) => r.role));
  if (names.size !== roles.length) {
    throw GatewayError.invalidRequest('Each service needs a role of its own: two DATABASE_URLs name the same user.');
  }
  await provisionServiceRoles(config.DATABASE_ADMIN_URL, roles);
  return roles.map(({ app, schema, role }) => ({ app, schema, role }));
}

function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}
