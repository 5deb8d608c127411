import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { secretVariables } from './config-decorators';

export interface ConfigProblem {
  variable: string;
  problem: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(`Invalid configuration: ${problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a config class from the environment once, at boot. Property names are the variable
 * names, property initialisers are the defaults. A bad or missing value throws a ConfigError
 * naming each variable at fault; mains turn that into a log line and exit code 78 (EX_CONFIG).
 */
export function loadConfig<T extends object>(
  configClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const defaults = new configClass() as Record<string, unknown>;
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(defaults)) {
    const value = env[key];
    raw[key] = value === undefined || value === '' ? defaults[key] : value;
  }
  const config = plainToInstance(configClass, raw);
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(errors.map(toProblem));
  }
  return Object.freeze(config);
}

function toProblem(error: ValidationError): ConfigProblem {
  const messages = Object.values(error.constraints ?? {});
  return {
    variable: error.property,
    problem: error.value === undefined ? 'is required' : messages.join(', ') || 'is invalid',
  };
}

/** The config for logs and support dumps: secrets shown only as whether they are set. */
export function describeConfig<T extends object>(configClass: new () => T, config: T): Record<string, unknown> {
  const secrets = secretVariables(configClass);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, secrets.has(key) ? (value ? '<set>' : '<unset>') : value]),
  );
}
