import { certificateProblemAt, certificateStanding, ClientCertificate, normalizeFingerprint, normalizeSubject } from './client-certificate';

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');
const OTHER = FINGERPRINT.replace(/^../, 'FF');
const NOW = Date.parse('2026-06-01T00:00:00Z');

const certificate = (changes: Partial<ClientCertificate> = {}): ClientCertificate => ({
  source: 'TLS',
  fingerprint: FINGERPRINT,
  subject: 'CN=shop.example,O=Shop\\, Inc.,C=DE',
  notBefore: NOW - 1000,
  notAfter: NOW + 1000,
  problem: null,
  ...changes,
});

describe('certificateProblemAt', () => {
  it('accepts a trusted certificate within its validity, bounds included', () => {
    expect(certificateProblemAt(certificate(), NOW)).toBeNull();
    expect(certificateProblemAt(certificate({ notBefore: NOW, notAfter: NOW }), NOW)).toBeNull();
  });

  it.each([
    [{ notAfter: NOW - 1 }, 'EXPIRED'],
    [{ notBefore: NOW + 1 }, 'NOT_YET_VALID'],
    [{ notAfter: NaN }, 'UNREADABLE'],
    [{ problem: 'UNTRUSTED' as const, notAfter: NOW - 1 }, 'UNTRUSTED'],
    [{ problem: 'NOT_FOR_CLIENT_AUTHENTICATION' as const }, 'NOT_FOR_CLIENT_AUTHENTICATION'],
  ])('refuses %j as %s', (changes, reason) => {
    expect(certificateProblemAt(certificate(changes), NOW)).toBe(reason);
  });
});

describe('certificateStanding', () => {
  it('registers by fingerprint or by subject, spaces around separators aside', () => {
    expect(certificateStanding({ fingerprints: [FINGERPRINT] }, certificate())).toBe('REGISTERED');
    expect(certificateStanding({ subjects: ['CN=shop.example, O=Shop\\, Inc., C=DE'] }, certificate())).toBe('REGISTERED');
    expect(certificateStanding({ subjects: ['CN=shop.example,O=Shop\\, Inc.'] }, certificate())).toBe('UNREGISTERED');
    expect(certificateStanding({ fingerprints: [OTHER] }, certificate())).toBe('UNREGISTERED');
    expect(certificateStanding(undefined, certificate())).toBe('UNREGISTERED');
  });

  it('refuses a revoked fingerprint whatever else registers it', () => {
    expect(certificateStanding({ fingerprints: [FINGERPRINT], subjects: ['CN=shop.example,O=Shop\\, Inc.,C=DE'], revokedFingerprints: [FINGERPRINT] }, certificate())).toBe(
      'REVOKED',
    );
  });
});

describe('normalizeSubject and normalizeFingerprint', () => {
  it('keeps escaped separators', () => {
    expect(normalizeSubject(' CN = a\\, b , O=c ')).toBe('CN=a\\, b,O=c');
  });

  it('reads the usual spellings of a SHA-256 fingerprint', () => {
    const bare = FINGERPRINT.replace(/:/g, '');
    expect(normalizeFingerprint(bare.toLowerCase())).toBe(FINGERPRINT);
    expect(normalizeFingerprint(`sha256 Fingerprint=${FINGERPRINT}`)).toBe(FINGERPRINT);
    expect(normalizeFingerprint(bare.slice(2))).toBeNull();
    expect(normalizeFingerprint('/etc/certificate.pem')).toBeNull();
  });
});
