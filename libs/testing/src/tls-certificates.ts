import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SelfSignedCertificate {
  /** PEM; also the CA a client must be told to trust (explicit test configuration). */
  cert: string;
  key: string;
}

/**
 * A self-signed server certificate for `localhost` and 127.0.0.1 (openssl), valid for a day:
 * the local HTTPS receivers of the webhook tests. Clients trust it only when configured to.
 */
export function selfSignedCertificate(commonName = 'localhost'): SelfSignedCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-cert-'));
  try {
    const config = path.join(dir, 'openssl.cnf');
    writeFileSync(
      config,
      [
        '[req]',
        'distinguished_name = dn',
        'x509_extensions = ext',
        'prompt = no',
        '[dn]',
        `CN = ${commonName}`,
        '[ext]',
        'basicConstraints = critical, CA:TRUE',
        'keyUsage = critical, digitalSignature, keyCertSign',
        'extendedKeyUsage = serverAuth',
        'subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1',
      ].join('\n'),
    );
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-config', config, '-keyout', keyFile, '-out', certFile],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
