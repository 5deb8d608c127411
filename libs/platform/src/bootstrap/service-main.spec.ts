import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, PlatformConfig } from '../config';
import { messagingOptions, natsTls } from './service-main';

const files = (caFile = '', certFile = '', keyFile = '') => ({ caFile, certFile, keyFile });

describe('natsTls: the TLS every NATS connection insists on', () => {
  it('is none for nats:// URLs without a CA file (the server decides)', () => {
    expect(natsTls(['nats://a:4222', 'nats://b:4222'], files())).toBeNull();
  });

  it('is required, verified against the system CAs, for a tls:// URL', () => {
    expect(natsTls(['tls://a:4222'], files())).toEqual({});
  });

  it('is required for every server once one URL is tls://, or a CA file is set', () => {
    expect(natsTls(['nats://a:4222', 'tls://b:4222'], files())).toEqual({});
    expect(natsTls(['nats://a:4222'], files('/etc/gateway/nats-ca/ca.crt'))).toEqual({ caFile: '/etc/gateway/nats-ca/ca.crt' });
  });

  it('is required, with the client certificate shown to servers that ask for one, once a certificate is set', () => {
    expect(natsTls(['nats://a:4222'], files('', '/etc/gateway/nats-client/tls.crt', '/etc/gateway/nats-client/tls.key'))).toEqual({
      certFile: '/etc/gateway/nats-client/tls.crt',
      keyFile: '/etc/gateway/nats-client/tls.key',
    });
    expect(natsTls(['tls://a:4222'], files('/ca.crt', '/tls.crt', '/tls.key'))).toEqual({ caFile: '/ca.crt', certFile: '/tls.crt', keyFile: '/tls.key' });
  });
});

describe('messagingOptions: the NATS_TLS_* files, read at start', () => {
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  /** A key and its self-signed certificate (openssl), written as `<name>.key` and `<name>.crt`. */
  const keyPair = (name: string) =>
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${name}`, '-keyout', file(`${name}.key`), '-out', file(`${name}.crt`)],
      { stdio: 'ignore' },
    );
  const options = (env: Record<string, string>) => () => messagingOptions(loadConfig(PlatformConfig, { NATS_URL: 'tls://nats:4222', ...env }), 'test');
  const problems = (env: Record<string, string>) => {
    try {
      options(env)();
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'nats-tls-files-'));
    keyPair('ca');
    keyPair('client');
    keyPair('other');
    writeFileSync(file('empty.crt'), 'not a certificate\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes files that are there: a CA certificate, a client certificate and its key', () => {
    expect(options({ NATS_TLS_CA_FILE: file('ca.crt'), NATS_TLS_CERT_FILE: file('client.crt'), NATS_TLS_KEY_FILE: file('client.key') })()).toMatchObject({
      tls: { caFile: file('ca.crt'), certFile: file('client.crt'), keyFile: file('client.key') },
    });
  });

  it('stops the start, naming the variable, on a file that is not there (nats.js would retry the connection for ever, in silence)', () => {
    expect(problems({ NATS_TLS_CA_FILE: file('missing.crt') })).toEqual([{ variable: 'NATS_TLS_CA_FILE', problem: 'cannot be read: ENOENT' }]);
    expect(problems({ NATS_TLS_CERT_FILE: file('missing.crt'), NATS_TLS_KEY_FILE: file('client.key') })).toEqual([
      { variable: 'NATS_TLS_CERT_FILE', problem: 'cannot be read: ENOENT' },
    ]);
  });

  it('stops the start on a CA file without a certificate, and on a key that does not fit its certificate', () => {
    expect(problems({ NATS_TLS_CA_FILE: file('empty.crt') })).toEqual([{ variable: 'NATS_TLS_CA_FILE', problem: 'holds no PEM certificate' }]);
    expect(problems({ NATS_TLS_CERT_FILE: file('client.crt'), NATS_TLS_KEY_FILE: file('other.key') })).toEqual([
      { variable: 'NATS_TLS_KEY_FILE', problem: expect.stringMatching(/^does not fit NATS_TLS_CERT_FILE: /) },
    ]);
  });

  it('reads nothing where the process opens no NATS connection (the standalone profile, a webhook dispatcher)', () => {
    expect(problems({ GATEWAY_PROFILE: 'standalone', NATS_TLS_CA_FILE: file('missing.crt') })).toEqual([]);
  });
});
