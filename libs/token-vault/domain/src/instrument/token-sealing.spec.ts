import { Pan } from '@gateway/crypto';
import { TEST_CARD } from '@gateway/testing';
import type { TokenRecord } from '@gateway/token-vault/data-access';
import { CardExpiry } from '../cards/card-expiry';
import { vaultTestBed } from '../testing/vault-test-bed';
import type { Instrument } from './instrument';

const card: Instrument = { type: 'CARD', pan: Pan.of(TEST_CARD), expiry: CardExpiry.of('1', '39') };

function recordOf(id: string, sealed: Partial<TokenRecord>): TokenRecord {
  return { id, sourceType: 'CARD', cardExpiry: '0139', providerADetails: null, schemeToken: null, schemeTokenReference: null, ...sealed } as TokenRecord;
}

describe('TokenSealing', () => {
  it('seals the account identifier bound to its row: a ciphertext moved to another row does not open', async () => {
    const { sealing } = await vaultTestBed();
    const sealed = sealing.seal('row-1', card, null);
    expect(sealed.accountIdentifier.toString('latin1')).not.toContain(TEST_CARD);
    const opened = await sealing.openInstrument(recordOf('row-1', sealed));
    expect(opened.type === 'CARD' && opened.pan.reveal()).toBe(TEST_CARD);
    await expect(sealing.openInstrument(recordOf('row-2', sealed))).rejects.toMatchObject({ reason: 'AUTHENTICATION_FAILED' });
  });

  it('keys fingerprints by repository and identifier, never the number itself', async () => {
    const { sealing } = await vaultTestBed();
    const a = sealing.fingerprint('Test1', card);
    expect(a).toHaveLength(32);
    expect(sealing.fingerprint('Test1', card)).toEqual(a);
    expect(sealing.fingerprint('Test2', card)).not.toEqual(a);
    expect(a.toString('latin1')).not.toContain(TEST_CARD);
  });

  it('re-seals a row under the ACTIVE key after a rotation', async () => {
    const { sealing, keys } = await vaultTestBed();
    const before = sealing.seal('row-1', card, null);
    await keys.rotateDataKey();
    const after = await sealing.reseal(recordOf('row-1', before));
    expect(before.dataKeyId).toBe(1);
    expect(after.dataKeyId).toBe(2);
    const opened = await sealing.openInstrument(recordOf('row-1', after));
    expect(opened.type === 'CARD' && opened.pan.reveal()).toBe(TEST_CARD);
  });

  it('keeps the scheme token through a re-seal', async () => {
    const { sealing, keys } = await vaultTestBed();
    const schemeToken = { reference: 'ref-1', number: Pan.of('4111111111111111'), expiry: CardExpiry.of('2', '40') };
    const before = recordOf('row-1', { ...sealing.seal('row-1', card, schemeToken), schemeTokenReference: 'ref-1' });
    await keys.rotateDataKey();
    const after = recordOf('row-1', { ...(await sealing.reseal(before)), schemeTokenReference: 'ref-1' });
    const opened = await sealing.openSchemeToken(after);
    expect(opened?.number.reveal()).toBe('4111111111111111');
    expect(opened?.expiry?.mmyy).toBe('0240');
  });
});
