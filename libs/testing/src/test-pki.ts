import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** SHA-256, `AB:CD:...` */
  fingerprint: string;
  /** RFC 2253, most specific first: `CN=...,O=...` */
  subject: string;
}

export interface IssueOptions {
  /** OpenSSL `-subj` form, most general first: `/O=Shop/CN=shop.example` */
  subject: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Extended key usage; `clientAuth` unless said otherwise. */
  usage?: 'clientAuth' | 'serverAuth';
  /**
   * Which CA signs it: the one the edge trusts, another one, the certificate itself, or an
   * impostor: a CA with the trusted CA's name and key identifier but a key of its own, so only
   * the signature tells its certificates apart.
   */
  issuer?: 'trusted' | 'untrusted' | 'self' | 'impostor';
}

export interface TestPki {
  dir: string;
  /** The CA bundle the edge trusts for client certificates (TLS_CLIENT_CA_FILE). */
  caFile: string;
  /** The edge's own certificate, for 127.0.0.1 and localhost, from the trusted CA. */
  server: IssuedCertificate;
  issue(name: string, options: IssueOptions): IssuedCertificate;
  remove(): void;
}

const DAY = 86_400_000;

/**
 * CAs, a server certificate and client certificates made at test time with the `openssl`
 * binary (node:crypto reads X.509 but cannot issue it). EC P-256 keys keep it fast. Nothing
 * leaves the temporary directory; `remove()` deletes it.
 */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-pki-'));
  const trustedSubject = '/O=Gateway Tests/CN=Trusted Client CA';
  const trusted = createCa(dir, 'trusted', trustedSubject);
  const cas: Record<'trusted' | 'untrusted', CreatedCa> & { impostor?: CreatedCa } = { trusted, untrusted: createCa(dir, 'untrusted', '/O=Elsewhere/CN=Other CA') };
  // Made on first use: most tests never need it.
  const impostor = (): CreatedCa => {
    const keyId = openssl(dir, ['x509', '-in', trusted.certFile, '-noout', '-ext', 'subjectKeyIdentifier']).trim().split('\n').at(-1)!.trim();
    cas.impostor ??= createCa(dir, 'impostor', trustedSubject, ['-addext', `subjectKeyIdentifier=${keyId}`]);
    return cas.impostor;
  };
  const issue = (name: string, options: IssueOptions): IssuedCertificate => {
    const keyFile = path.join(dir, `${name}.key`);
    const certFile = path.join(dir, `${name}.pem`);
    openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyFile]);
    const usage = options.usage ?? 'clientAuth';
    if (options.issuer === 'self') {
      openssl(dir, ['req', '-x509', '-new', '-key', keyFile, '-subj', options.subject, '-days', '30', '-addext', `extendedKeyUsage=${usage}`, '-out', certFile]);
    } else {
      const ca = options.issuer === 'impostor' ? impostor() : cas[options.issuer ?? 'trusted'];
      const csr = path.join(dir, `${name}.csr`);
      openssl(dir, ['req', '-new', '-key', keyFile, '-subj', options.subject, '-out', csr]);
      const notBefore = options.notBefore ?? new Date(Date.now() - DAY);
      const notAfter = options.notAfter ?? new Date(Date.now() + 30 * DAY);
      openssl(dir, [
        'ca', '-batch', '-notext', '-config', ca.config, '-extensions', usage === 'clientAuth' ? 'client_ext' : 'server_ext',
        '-startdate', opensslTime(notBefore), '-enddate', opensslTime(notAfter), '-in', csr, '-out', certFile,
      ]);
    }
    // OpenSSL's own reading, independent of the code under test.
    const described = openssl(dir, ['x509', '-in', certFile, '-noout', '-subject', '-nameopt', 'RFC2253', '-fingerprint', '-sha256']);
    return {
      certFile,
      keyFile,
      cert: readFileSync(certFile, 'utf8'),
      key: readFileSync(keyFile, 'utf8'),
      fingerprint: /Fingerprint=(\S+)/.exec(described)![1],
      subject: /^subject=(.*)$/m.exec(described)![1],
    };
  };
  return {
    dir,
    caFile: cas.trusted.certFile,
    server: issue('server', { subject: '/CN=localhost', usage: 'serverAuth' }),
    issue,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface CreatedCa {
  config: string;
  certFile: string;
}

function createCa(root: string, name: string, subject: string, extraExtensions: string[] = []): CreatedCa {
  const dir = path.join(root, `ca-${name}`);
  mkdirSync(path.join(dir, 'issued'), { recursive: true });
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'serial'), '1000\n');
  const keyFile = path.join(dir, 'ca.key');
  const certFile = path.join(dir, 'ca.pem');
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyFile]);
  openssl(dir, [
    'req', '-x509', '-new', '-key', keyFile, '-subj', subject, '-days', '3650',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', ...extraExtensions, '-out', certFile,
  ]);
  const config = path.join(dir, 'ca.cnf');
  writeFileSync(
    config,
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir/issued',
      'serial = $dir/serial',
      'certificate = $dir/ca.pem',
      'private_key = $dir/ca.key',
      'default_md = sha256',
      'policy = policy_any',
      'unique_subject = no',
      'preserve = yes',
      '[policy_any]',
      'commonName = supplied',
      'organizationName = optional',
      'organizationalUnitName = optional',
      'countryName = optional',
      '[client_ext]',
      'basicConstraints = CA:FALSE',
      'extendedKeyUsage = clientAuth',
      '[server_ext]',
      'basicConstraints = CA:FALSE',
      'extendedKeyUsage = serverAuth',
      'subjectAltName = IP:127.0.0.1,DNS:localhost',
      '',
    ].join('\n'),
  );
  return { config, certFile };
}

function openssl(cwd: string, args: string[]): string {
  return execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate` takes it. */
function opensslTime(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}
