import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
   * Which CA signs it: the one the edge trusts, another one, the certificate itself, an
   * impostor: a CA with the trusted CA's name and key identifier but a key of its own, so only
   * the signature tells its certificates apart; or an intermediate of the trusted CA, in the
   * bundle too, whose own validity ended yesterday (`expiredCa`) or begins tomorrow (`futureCa`).
   */
  issuer?: 'trusted' | 'untrusted' | 'self' | 'impostor' | 'expiredCa' | 'futureCa';
}

export interface TestPki {
  dir: string;
  /**
   * The CA bundle the edge trusts for client certificates (TLS_CLIENT_CA_FILE): the trusted CA,
   * and the intermediates issued so far: issue from them before the edge reads it.
   */
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
  const cas: Record<'trusted' | 'untrusted', CreatedCa> & Partial<Record<'impostor' | 'expiredCa' | 'futureCa', CreatedCa>> = {
    trusted,
    untrusted: createCa(dir, 'untrusted', '/O=Elsewhere/CN=Other CA'),
  };
  const caFile = path.join(dir, 'trusted-cas.pem');
  writeFileSync(caFile, readFileSync(trusted.certFile, 'utf8'));
  // Made on first use: most tests never need them.
  const impostor = (): CreatedCa => {
    const keyId = openssl(dir, ['x509', '-in', trusted.certFile, '-noout', '-ext', 'subjectKeyIdentifier']).trim().split('\n').at(-1)!.trim();
    cas.impostor ??= createCa(dir, 'impostor', trustedSubject, { extensions: ['-addext', `subjectKeyIdentifier=${keyId}`] });
    return cas.impostor;
  };
  const outOfValidity = (which: 'expiredCa' | 'futureCa'): CreatedCa => {
    if (!cas[which]) {
      const [from, to] = which === 'expiredCa' ? [-60 * DAY, -DAY] : [DAY, 60 * DAY];
      const subject = `/O=Gateway Tests/CN=${which === 'expiredCa' ? 'Expired' : 'Future'} Client CA`;
      cas[which] = createCa(dir, which, subject, { issuedBy: { ca: trusted, notBefore: new Date(Date.now() + from), notAfter: new Date(Date.now() + to) } });
      appendFileSync(caFile, readFileSync(cas[which].certFile, 'utf8'));
    }
    return cas[which];
  };
  const issue = (name: string, options: IssueOptions): IssuedCertificate => {
    const keyFile = path.join(dir, `${name}.key`);
    const certFile = path.join(dir, `${name}.pem`);
    openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyFile]);
    const usage = options.usage ?? 'clientAuth';
    if (options.issuer === 'self') {
      openssl(dir, ['req', '-x509', '-new', '-key', keyFile, '-subj', options.subject, '-days', '30', '-addext', `extendedKeyUsage=${usage}`, '-out', certFile]);
    } else {
      const issuer = options.issuer ?? 'trusted';
      const ca = issuer === 'impostor' ? impostor() : issuer === 'expiredCa' || issuer === 'futureCa' ? outOfValidity(issuer) : cas[issuer];
      const csr = path.join(dir, `${name}.csr`);
      openssl(dir, ['req', '-new', '-key', keyFile, '-subj', options.subject, '-out', csr]);
      const notBefore = options.notBefore ?? new Date(Date.now() - DAY);
      const notAfter = options.notAfter ?? new Date(Date.now() + 30 * DAY);
      signWith(ca, csr, certFile, usage === 'clientAuth' ? 'client_ext' : 'server_ext', notBefore, notAfter);
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
    caFile,
    server: issue('server', { subject: '/CN=localhost', usage: 'serverAuth' }),
    issue,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface CreatedCa {
  config: string;
  certFile: string;
}

interface CaOptions {
  /** More `-addext` arguments for a self-signed CA. */
  extensions?: string[];
  /** An intermediate CA instead: the CA that issues it, and for what validity. */
  issuedBy?: { ca: CreatedCa; notBefore: Date; notAfter: Date };
}

function createCa(root: string, name: string, subject: string, options: CaOptions = {}): CreatedCa {
  const dir = path.join(root, `ca-${name}`);
  mkdirSync(path.join(dir, 'issued'), { recursive: true });
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'serial'), '1000\n');
  const keyFile = path.join(dir, 'ca.key');
  const certFile = path.join(dir, 'ca.pem');
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyFile]);
  if (options.issuedBy) {
    const { ca, notBefore, notAfter } = options.issuedBy;
    const csr = path.join(dir, 'ca.csr');
    openssl(dir, ['req', '-new', '-key', keyFile, '-subj', subject, '-out', csr]);
    signWith(ca, csr, certFile, 'ca_ext', notBefore, notAfter);
  } else {
    openssl(dir, [
      'req', '-x509', '-new', '-key', keyFile, '-subj', subject, '-days', '3650',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', ...(options.extensions ?? []), '-out', certFile,
    ]);
  }
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
      '[ca_ext]',
      'basicConstraints = critical,CA:TRUE',
      'keyUsage = critical,keyCertSign,cRLSign',
      '',
    ].join('\n'),
  );
  return { config, certFile };
}

/** `openssl ca`: `ca` signs the request with the extensions of `section`, for this validity. */
function signWith(ca: CreatedCa, csr: string, certFile: string, section: 'client_ext' | 'server_ext' | 'ca_ext', notBefore: Date, notAfter: Date): void {
  openssl(path.dirname(ca.config), [
    'ca', '-batch', '-notext', '-config', ca.config, '-extensions', section,
    '-startdate', opensslTime(notBefore), '-enddate', opensslTime(notAfter), '-in', csr, '-out', certFile,
  ]);
}

function openssl(cwd: string, args: string[]): string {
  return execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate` takes it. */
function opensslTime(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}
