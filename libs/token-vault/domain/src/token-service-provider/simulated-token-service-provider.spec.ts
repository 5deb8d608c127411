import { createHash, randomBytes } from 'node:crypto';
import { Fingerprinter, Pan, passesLuhn, Secret } from '@gateway/crypto';
import { TEST_CARD } from '@gateway/testing';
import { CardExpiry } from '../cards/card-expiry';
import type { CardInstrument } from '../instrument/instrument';
import { SIMULATOR_PROVISIONED_CARD, SimulatedTokenServiceProvider, simulatedSchemeTokenNumber } from './simulated-token-service-provider';
import { SCHEME_TOKENIZATION_CODES } from './token-service-provider';
import { BuiltInTokenServiceProviders } from './token-service-providers';
import { testMerchant } from '../testing/vault-test-bed';

const card: CardInstrument = { type: 'CARD', pan: Pan.of(TEST_CARD), expiry: CardExpiry.of('1', '39') };
const newKey = () => new Fingerprinter(new Secret(randomBytes(32)));

describe('SimulatedTokenServiceProvider', () => {
  const key = newKey();
  const simulator = new SimulatedTokenServiceProvider(key);

  it.each(SCHEME_TOKENIZATION_CODES)('answers %s to tokenization when nameOnCard names it, with or without the prefix', async (code) => {
    for (const magic of [code, code.replace('SCHEME_TOKENIZATION_', '')]) {
      const result = await simulator.tokenize(card, { nameOnCard: magic });
      expect(result.code).toBe(code);
      expect(result.schemeToken !== undefined).toBe(code.startsWith('SCHEME_TOKENIZATION_SUCCESSFUL'));
    }
  });

  it('succeeds for any other name, with a stable scheme token of the card\'s BIN and length', async () => {
    const result = await simulator.tokenize(card, { nameOnCard: 'Jo Cardholder' });
    expect(result.code).toBe('SCHEME_TOKENIZATION_SUCCESSFUL');
    const number = result.schemeToken!.number.reveal();
    expect(number).toBe(simulatedSchemeTokenNumber(key, card.pan));
    expect((await simulator.tokenize(card, {})).schemeToken!.number.reveal()).toBe(number);
    expect(number).toHaveLength(16);
    expect(number.startsWith('5123459')).toBe(true);
    expect(number).not.toBe(TEST_CARD);
    expect(passesLuhn(number)).toBe(true);
    expect(result.schemeToken!.expiry?.mmyy).toBe('0139');
  });

  it('derives the scheme token from the card only under the vault\'s key, and references it at random (ARCHITECTURE 6: no plain hash of card data)', async () => {
    const first = (await simulator.tokenize(card, {})).schemeToken!;
    const again = (await simulator.tokenize(card, {})).schemeToken!;
    const otherKey = (await new SimulatedTokenServiceProvider(newKey()).tokenize(card, {})).schemeToken!;
    // Another key, another number: the card alone does not give it.
    expect(otherKey.number.reveal()).not.toBe(first.number.reveal());
    // The reference is kept in clear: nothing in it comes from the card or its scheme token.
    expect(first.reference).toMatch(/^SIM-[0-9a-f]{24}$/);
    expect(again.reference).not.toBe(first.reference);
    for (const digest of [first.number.reveal(), TEST_CARD].map((text) => createHash('sha256').update(text).digest('hex').slice(0, 24))) {
      expect(first.reference).not.toBe(`SIM-${digest}`);
    }
  });

  it.each(SCHEME_TOKENIZATION_CODES)('answers %s to push provisioning when the identifier names it', async (code) => {
    const result = await simulator.provision(code.replace('SCHEME_TOKENIZATION_', ''));
    expect(result.code).toBe(code);
    expect(result.card !== undefined).toBe(code.startsWith('SCHEME_TOKENIZATION_SUCCESSFUL'));
  });

  it('provisions the gateway test card for any other identifier', async () => {
    const result = await simulator.provision('ISSUER-REF-42');
    expect(result.card?.pan.reveal()).toBe(SIMULATOR_PROVISIONED_CARD);
    expect(result.card?.expiry?.mmyy).toBe('0139');
    expect(result.schemeToken?.reference).toMatch(/^SIM-[0-9a-f]{24}$/);
  });
});

describe('BuiltInTokenServiceProviders', () => {
  it('gives test merchants the simulator and live merchants an honest error', async () => {
    const providers = new BuiltInTokenServiceProviders(true, newKey());
    expect((await providers.forMerchant(testMerchant()).tokenize(card, {})).code).toBe('SCHEME_TOKENIZATION_SUCCESSFUL');
    expect((await providers.forMerchant(testMerchant({ mode: 'LIVE' })).tokenize(card, {})).code).toBe('SCHEME_TOKENIZATION_ERROR');
    expect((await providers.forMerchant(testMerchant({ mode: 'LIVE' })).provision('REF', {})).code).toBe('SCHEME_TOKENIZATION_ERROR');
  });

  it('can turn the simulator off', async () => {
    const providers = new BuiltInTokenServiceProviders(false, newKey());
    expect((await providers.forMerchant(testMerchant()).tokenize(card, {})).code).toBe('SCHEME_TOKENIZATION_ERROR');
  });
});
