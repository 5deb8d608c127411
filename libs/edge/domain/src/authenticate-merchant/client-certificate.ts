import { X509Certificate } from 'node:crypto';
import { CERTIFICATE_FINGERPRINT, ClientCertificateSettings } from '@gateway/contracts';

/** Why a client certificate does not authenticate; logged with the support code of the 403. */
export type CertificateRefusal =
  | 'UNREADABLE'
  | 'UNTRUSTED'
  | 'NOT_FOR_CLIENT_AUTHENTICATION'
  | 'EXPIRED'
  | 'NOT_YET_VALID'
  | 'REVOKED'
  | 'UNREGISTERED';

export type CertificateSource = 'TLS' | 'HEADER';

/**
 * A client certificate as read once (per TLS connection, or per distinct header value) and
 * checked against the trusted CAs; what depends on the time is checked per request.
 */
export interface ClientCertificate {
  source: CertificateSource;
  /** SHA-256, `AB:CD:...`, as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint: string;
  /** RFC 2253, as `openssl x509 -noout -subject -nameopt RFC2253` prints it. */
  subject: string;
  /** The validity of the certificate and of the CA that issued it, intersected (ms). */
  notBefore: number;
  notAfter: number;
  /** Problems that do not change with time. */
  problem: 'UNTRUSTED' | 'NOT_FOR_CLIENT_AUTHENTICATION' | null;
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The CAs whose client certificates the edge accepts (TLS_CLIENT_CA_FILE). A certificate is
 * trusted when one of them issued it (names, key ids and signature checked) and is a CA; the
 * bundle holds the issuing CAs themselves, intermediates included, since a proxy forwards the
 * client's certificate alone.
 */
export class ClientCertificateAuthority {
  private constructor(private readonly cas: X509Certificate[]) {}

  /** Every certificate of a PEM bundle; throws when it holds none or one cannot be read. */
  static fromPem(bundle: string): ClientCertificateAuthority {
    const blocks = bundle.match(PEM_CERTIFICATE) ?? [];
    if (blocks.length === 0) {
      throw new Error('holds no PEM certificate');
    }
    return new ClientCertificateAuthority(blocks.map((block) => new X509Certificate(block)));
  }

  read(certificate: X509Certificate, source: CertificateSource): ClientCertificate {
    const issuer = this.cas.find((ca) => ca.ca && certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
    const usages = certificate.keyUsage;
    const forClients = !usages || usages.includes(CLIENT_AUTH) || usages.includes(ANY_EXTENDED_KEY_USAGE);
    return {
      source,
      fingerprint: certificate.fingerprint256,
      subject: subjectOf(certificate),
      notBefore: Math.max(Date.parse(certificate.validFrom), issuer ? Date.parse(issuer.validFrom) : -Infinity),
      notAfter: Math.min(Date.parse(certificate.validTo), issuer ? Date.parse(issuer.validTo) : Infinity),
      problem: !issuer ? 'UNTRUSTED' : forClients ? null : 'NOT_FOR_CLIENT_AUTHENTICATION',
    };
  }
}

/** What is wrong with the certificate at `now`, before looking at any merchant; null if nothing. */
export function certificateProblemAt(certificate: ClientCertificate, now: number): CertificateRefusal | null {
  if (certificate.problem) return certificate.problem;
  // An unparsable date is NaN: every comparison is false, so check for the good case.
  if (!(now >= certificate.notBefore)) return Number.isNaN(certificate.notBefore) ? 'UNREADABLE' : 'NOT_YET_VALID';
  if (!(now <= certificate.notAfter)) return Number.isNaN(certificate.notAfter) ? 'UNREADABLE' : 'EXPIRED';
  return null;
}

interface Registrations {
  fingerprints: Set<string>;
  subjects: Set<string>;
  revoked: Set<string>;
}

/** Sets per settings object: a profile may revoke thousands of certificates. */
const registrationsOf = new WeakMap<ClientCertificateSettings, Registrations>();

/** Whether the merchant registered the certificate: by fingerprint or subject, and did not revoke it. */
export function certificateStanding(
  settings: ClientCertificateSettings | undefined,
  certificate: ClientCertificate,
): 'REGISTERED' | 'REVOKED' | 'UNREGISTERED' {
  if (!settings) return 'UNREGISTERED';
  let registrations = registrationsOf.get(settings);
  if (!registrations) {
    registrations = {
      fingerprints: new Set(settings.fingerprints ?? []),
      subjects: new Set((settings.subjects ?? []).map(normalizeSubject)),
      revoked: new Set(settings.revokedFingerprints ?? []),
    };
    registrationsOf.set(settings, registrations);
  }
  if (registrations.revoked.has(certificate.fingerprint)) return 'REVOKED';
  return registrations.fingerprints.has(certificate.fingerprint) || registrations.subjects.has(normalizeSubject(certificate.subject))
    ? 'REGISTERED'
    : 'UNREGISTERED';
}

/**
 * RFC 2253: the relative names most specific first, comma-separated. Node prints them one per
 * line in certificate order, already escaped the RFC 2253 way.
 */
export function subjectOf(certificate: X509Certificate): string {
  return certificate.subject.split('\n').reverse().join(',').replace(/ \+ /g, '+');
}

/** Spaces around separators are not part of a DN; `CN=a, O=b` registers `CN=a,O=b`. */
export function normalizeSubject(subject: string): string {
  return subject.trim().replace(/\s*(?<!\\)([,+=])\s*/g, '$1');
}

/** `ab:cd…`, `ABCD…` or `sha256 Fingerprint=AB:CD…` as the settings store it, or null. */
export function normalizeFingerprint(text: string): string | null {
  const hex = text.replace(/^.*=/, '').replace(/[:\s]/g, '').toUpperCase();
  const formatted = hex.match(/.{2}/g)?.join(':') ?? '';
  return CERTIFICATE_FINGERPRINT.test(formatted) ? formatted : null;
}

/** For the admin CLI: what registering a PEM certificate would store. */
export function describeCertificatePem(pem: string): { fingerprint: string; subject: string; validTo: string } {
  const block = pem.match(PEM_CERTIFICATE)?.[0];
  if (!block) {
    throw new Error('no PEM certificate found');
  }
  const certificate = new X509Certificate(block);
  return { fingerprint: certificate.fingerprint256, subject: subjectOf(certificate), validTo: certificate.validTo };
}
