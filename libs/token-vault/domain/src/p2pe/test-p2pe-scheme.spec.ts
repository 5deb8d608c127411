import { randomBytes } from 'node:crypto';
import { GatewayError } from '@gateway/contracts';
import { Pan, Secret } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE } from '@gateway/testing';
import { testMerchant } from '../testing/vault-test-bed';
import { TestP2peScheme, testBdkFromHex, X9_24_SAMPLE_BDK_HEX } from './test-p2pe-scheme';

const KSN = 'FFFF9876543210E00001';

describe('TestP2peScheme', () => {
  const scheme = new TestP2peScheme(testBdkFromHex(X9_24_SAMPLE_BDK_HEX));
  const merchant = testMerchant();

  it('round-trips a PAN under a KSN, with or without an IV', () => {
    const iv = randomBytes(16);
    const payload = scheme.encrypt(Pan.of(TEST_CARD), KSN, iv);
    expect(payload).toMatch(/^[0-9A-F]{64}$/);
    expect(scheme.decrypt(merchant, { keySerialNumber: KSN, payload, initializationVector: iv.toString('hex') }).reveal()).toBe(TEST_CARD);
    const noIv = scheme.encrypt(Pan.of(TEST_CARD), KSN);
    expect(scheme.decrypt(merchant, { keySerialNumber: KSN, payload: noIv }).reveal()).toBe(TEST_CARD);
  });

  it('derives a different key for each KSN (a payload does not open under another counter)', () => {
    const payload = scheme.encrypt(Pan.of(TEST_CARD), KSN);
    expect(scheme.encrypt(Pan.of(TEST_CARD), 'FFFF9876543210E00002')).not.toBe(payload);
  });

  it('does not open under another BDK', () => {
    const payload = scheme.encrypt(Pan.of(TEST_CARD), KSN);
    const other = new TestP2peScheme(new Secret(randomBytes(16)));
    expect(() => other.decrypt(merchant, { keySerialNumber: KSN, payload })).toThrow(GatewayError);
  });

  it('checks cardBin against the decrypted number', () => {
    const payload = scheme.encrypt(Pan.of(TEST_CARD), KSN);
    expect(scheme.decrypt(merchant, { keySerialNumber: KSN, payload, cardBin: '512345' }).bin).toBe('512345');
    expect(() => scheme.decrypt(merchant, { keySerialNumber: KSN, payload, cardBin: '512346' })).toThrow(
      expect.objectContaining({ field: 'sourceOfFunds.provided.card.p2pe.cardBin' }),
    );
  });

  it('refuses a decrypted number failing Luhn, as the card number field would, on the payload', () => {
    const payload = scheme.encrypt(Pan.of(TEST_CARD_LUHN_FAILURE), KSN);
    let error: unknown;
    try {
      scheme.decrypt(merchant, { keySerialNumber: KSN, payload });
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ field: 'sourceOfFunds.provided.card.p2pe.payload', validationType: 'INVALID' });
    expect(JSON.stringify((error as GatewayError).toResponseBody())).not.toContain(TEST_CARD_LUHN_FAILURE);
  });

  it('rejects an IV of the wrong size and a configured BDK of the wrong size', () => {
    const payload = scheme.encrypt(Pan.of(TEST_CARD), KSN);
    expect(() => scheme.decrypt(merchant, { keySerialNumber: KSN, payload, initializationVector: '00'.repeat(8) })).toThrow(
      expect.objectContaining({ field: 'sourceOfFunds.provided.card.p2pe.initializationVector' }),
    );
    expect(() => testBdkFromHex('0011')).toThrow('VAULT_P2PE_TEST_BDK');
  });

  it('never puts the card number in an error', () => {
    const payload = scheme.encrypt(Pan.of(TEST_CARD), KSN);
    try {
      scheme.decrypt(merchant, { keySerialNumber: KSN, payload, cardBin: '4' });
    } catch (err) {
      expect(JSON.stringify(err)).not.toContain(TEST_CARD);
      expect((err as GatewayError).explanation).not.toContain(TEST_CARD);
    }
  });
});
