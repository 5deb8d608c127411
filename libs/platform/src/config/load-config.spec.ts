import { IsInt, IsString, Min, MinLength } from 'class-validator';
import { BoolVar, Describe, describeVariables, IntVar, MinMilliseconds } from './config-decorators';
import { ConfigError, describeConfig, loadConfig } from './load-config';
import { DatabaseConfig, PlatformConfig } from './platform.config';

class SampleConfig {
  @Describe('a port')
  @IntVar()
  @IsInt()
  @Min(1)
  PORT = 8080;

  @Describe('a key', { secret: true })
  @IsString()
  @MinLength(8)
  KEY: string = undefined as unknown as string;

  @BoolVar()
  FLAG = false;
}

describe('loadConfig', () => {
  it('reads variables by name and applies defaults', () => {
    const config = loadConfig(SampleConfig, { KEY: 'abcdefgh', FLAG: 'true' });
    expect(config).toMatchObject({ PORT: 8080, KEY: 'abcdefgh', FLAG: true });
  });

  it('names a missing required variable', () => {
    expect(() => loadConfig(SampleConfig, {})).toThrow(ConfigError);
    try {
      loadConfig(SampleConfig, {});
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([{ variable: 'KEY', problem: 'is required' }]);
    }
  });

  it('names each invalid variable instead of guessing a value', () => {
    try {
      loadConfig(SampleConfig, { PORT: '80x', KEY: 'short', FLAG: 'yes' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.variable).sort()).toEqual(['KEY', 'PORT']);
      expect((err as ConfigError).message).toContain('PORT');
    }
  });

  it('refuses a database URL that is not postgres://', () => {
    expect(() => loadConfig(DatabaseConfig, { DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
  });

  /** PlatformConfig's problems with `env`: none when it loads. */
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(PlatformConfig, env);
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };

  it('wants a NATS client certificate and its key together', () => {
    expect(problems({ NATS_TLS_CERT_FILE: '/tls.crt' })).toEqual([{ variable: 'NATS_TLS_KEY_FILE', problem: 'is required with NATS_TLS_CERT_FILE' }]);
    expect(problems({ NATS_TLS_KEY_FILE: '/tls.key' })).toEqual([{ variable: 'NATS_TLS_CERT_FILE', problem: 'is required with NATS_TLS_KEY_FILE' }]);
    expect(problems({ NATS_TLS_CERT_FILE: '/tls.crt', NATS_TLS_KEY_FILE: '/tls.key' })).toEqual([]);
    expect(problems({})).toEqual([]);
  });

  it('refuses METRICS_PORT on HTTP_PORT, naming both, and takes it unset, elsewhere, or both 0', () => {
    expect(problems({ HTTP_PORT: '8082', METRICS_PORT: '8082' })).toEqual([
      { variable: 'METRICS_PORT', problem: 'must not be HTTP_PORT (8082): /metrics is served on a port of its own; unset METRICS_PORT to serve it on HTTP_PORT' },
    ]);
    expect(problems({ METRICS_PORT: '8080' })).toEqual([expect.objectContaining({ variable: 'METRICS_PORT' })]);
    expect(problems({ HTTP_PORT: '8082', METRICS_PORT: '9464' })).toEqual([]);
    expect(problems({ HTTP_PORT: '8082' })).toEqual([]);
    expect(problems({ HTTP_PORT: '0', METRICS_PORT: '0' })).toEqual([]);
    // An invalid HTTP_PORT is reported on its own line only.
    expect(problems({ HTTP_PORT: '80x', METRICS_PORT: '9464' }).map((p) => p.variable)).toEqual(['HTTP_PORT']);
  });

  it('never shows a secret when describing the configuration', () => {
    const config = loadConfig(SampleConfig, { KEY: 'abcdefgh-secret' });
    expect(JSON.stringify(describeConfig(SampleConfig, config))).not.toContain('abcdefgh-secret');
    expect(describeVariables(SampleConfig).KEY).toEqual({ description: 'a key', secret: true });
  });
});

class DurationsConfig {
  @IntVar()
  @IsInt()
  @MinMilliseconds(7_200_000)
  LEASE_MS = 7_200_000;

  @IntVar()
  @IsInt()
  @MinMilliseconds(60_000)
  WAIT_MS = 60_000;

  @IntVar()
  @IsInt()
  @MinMilliseconds(1_500)
  PAUSE_MS = 1_500;
}

describe('MinMilliseconds', () => {
  it('names its floor in the largest whole unit, and the value refused in seconds', () => {
    try {
      loadConfig(DurationsConfig, { LEASE_MS: '3600', WAIT_MS: '30', PAUSE_MS: '1' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        { variable: 'LEASE_MS', problem: 'must be at least 7200000 (2 hours): the value is in milliseconds; 3600 is 3.6 seconds' },
        { variable: 'WAIT_MS', problem: 'must be at least 60000 (1 minute): the value is in milliseconds; 30 is 0.03 seconds' },
        { variable: 'PAUSE_MS', problem: 'must be at least 1500 (1500 milliseconds): the value is in milliseconds; 1 is 0.001 seconds' },
      ]);
    }
  });
});
