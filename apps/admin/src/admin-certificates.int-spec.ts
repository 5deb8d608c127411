import { createTestPki, TestPki } from '@gateway/testing';
import { runAdminCli } from './admin-cli';

/** Registering and revoking merchants' client certificates with the admin CLI. */
describe('admin certificate commands', () => {
  let pki: TestPki;
  const env = (): NodeJS.ProcessEnv => ({ DATABASE_URL: process.env.TEST_DATABASE_URL, API_PASSWORD_PEPPER: 'admin-certificates-pepper-of-32-chars-at-least' });

  async function cli(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(['--json', ...args], { out: (t) => out.push(t), err: (t) => err.push(t) }, env());
    return { code, json: out.length > 0 ? JSON.parse(out.join('\n')) : undefined, err: err.join('\n') };
  }

  beforeAll(() => {
    pki = createTestPki();
  });

  afterAll(() => {
    pki?.remove();
  });

  it('registers a certificate by fingerprint or by subject, and revokes one by file or fingerprint', async () => {
    const shop = pki.issue('shop', { subject: '/O=Shop, Inc./CN=shop.example' });
    const renewed = pki.issue('renewed', { subject: '/O=Shop, Inc./CN=shop.example' });
    const created = await cli('create', '--name', 'Certificate shop');
    const id = created.json.id as string;

    const byFingerprint = await cli('add-certificate', id, shop.certFile);
    expect(byFingerprint.json.settings.clientCertificates).toMatchObject({ fingerprints: [shop.fingerprint] });
    const bySubject = await cli('add-certificate', id, renewed.certFile, '--by', 'subject');
    expect(bySubject.json.settings.clientCertificates).toMatchObject({ fingerprints: [shop.fingerprint], subjects: [shop.subject] });
    expect((await cli('add-certificate', id, shop.certFile)).json.settings.clientCertificates.fingerprints).toEqual([shop.fingerprint]);

    const revokedByFile = await cli('revoke-certificate', id, shop.certFile);
    expect(revokedByFile.json.settings.clientCertificates).toMatchObject({ fingerprints: [], revokedFingerprints: [shop.fingerprint] });
    const lowerCase = renewed.fingerprint.toLowerCase().replace(/:/g, '');
    const revokedByFingerprint = await cli('revoke-certificate', id, lowerCase);
    expect(revokedByFingerprint.json.settings.clientCertificates.revokedFingerprints).toEqual([shop.fingerprint, renewed.fingerprint]);

    // A revocation is final: registering the certificate again is refused, not half done.
    expect(await cli('add-certificate', id, shop.certFile)).toMatchObject({ code: 1, err: expect.stringContaining('is revoked') });
    // Nor is it undone by set, whether it names the list or writes the whole object.
    expect(await cli('set', id, 'clientCertificates.revokedFingerprints=[]')).toMatchObject({ code: 1, err: expect.stringContaining('is revoked') });
    expect(await cli('set', id, `clientCertificates.fingerprints=["${shop.fingerprint}"]`)).toMatchObject({ code: 1, err: expect.stringContaining('is revoked') });
    expect(await cli('set', id, 'clientCertificates=null')).toMatchObject({ code: 1, err: expect.stringContaining('is revoked') });
    const rewritten = await cli('set', id, 'clientCertificates={"fingerprints":[]}');
    expect(rewritten.json.settings.clientCertificates.revokedFingerprints).toEqual([shop.fingerprint, renewed.fingerprint]);
    expect((await cli('show', id)).json.settings.clientCertificates).toMatchObject({ fingerprints: [], revokedFingerprints: [shop.fingerprint, renewed.fingerprint] });
  });

  it('refuses what is not a certificate, and a malformed fingerprint set by hand', async () => {
    const id = (await cli('create', '--name', 'Another shop')).json.id as string;
    expect(await cli('add-certificate', id, '/nonexistent.pem')).toMatchObject({ code: 1, err: expect.stringContaining('No certificate file') });
    expect(await cli('add-certificate', id, pki.server.keyFile)).toMatchObject({ code: 1, err: expect.stringContaining('is not a PEM certificate') });
    expect(await cli('set', id, 'clientCertificates.fingerprints=["abc"]')).toMatchObject({
      code: 1,
      err: expect.stringContaining('each fingerprint must be 32 hex pairs separated by colons'),
    });
  });
});
