import { readFileSync } from 'node:fs';
import type { ServerOptions } from 'node:https';
import { createSecureContext } from 'node:tls';
import { ClientCertificateAuthority } from '@gateway/edge/domain';
import { ConfigError } from '@gateway/platform';
import { EdgeConfig } from './edge.config';

/**
 * The edge's HTTPS server, from PEM files mounted from Secrets. With TLS_CLIENT_CERT the
 * handshake asks for a client certificate (naming the trusted CAs) but never fails over it
 * (`rejectUnauthorized: false`): the edge checks the certificate itself, so an expired or
 * revoked one gets the API's 403 with a support code instead of a bare TLS alert.
 */
export function edgeHttpsOptions(config: EdgeConfig): ServerOptions | undefined {
  if (!config.TLS_CERT_FILE) {
    return undefined;
  }
  const options: ServerOptions = {
    cert: readVariableFile(config, 'TLS_CERT_FILE'),
    key: readVariableFile(config, 'TLS_KEY_FILE'),
    minVersion: 'TLSv1.2',
  };
  try {
    createSecureContext({ cert: options.cert, key: options.key });
  } catch (err) {
    throw new ConfigError([{ variable: 'TLS_KEY_FILE', problem: `does not fit TLS_CERT_FILE: ${(err as Error).message}` }]);
  }
  if (config.TLS_CLIENT_CERT !== 'none') {
    Object.assign(options, { requestCert: true, rejectUnauthorized: false, ca: readVariableFile(config, 'TLS_CLIENT_CA_FILE') });
  }
  return options;
}

/** The CAs client certificates must come from; null when certificate authentication is off. */
export function clientCertificateAuthority(config: EdgeConfig): ClientCertificateAuthority | null {
  if (!config.TLS_CLIENT_CA_FILE) {
    return null;
  }
  try {
    return ClientCertificateAuthority.fromPem(readVariableFile(config, 'TLS_CLIENT_CA_FILE'));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError([{ variable: 'TLS_CLIENT_CA_FILE', problem: (err as Error).message }]);
  }
}

function readVariableFile(config: EdgeConfig, variable: 'TLS_CERT_FILE' | 'TLS_KEY_FILE' | 'TLS_CLIENT_CA_FILE'): string {
  try {
    return readFileSync(config[variable], 'utf8');
  } catch (err) {
    throw new ConfigError([{ variable, problem: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }]);
  }
}
