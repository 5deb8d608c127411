import { randomBytes } from 'node:crypto';
import { Fingerprinter, luhnCheckDigit, Pan } from '@gateway/crypto';
import { CardExpiry } from '../cards/card-expiry';
import type { CardInstrument } from '../instrument/instrument';
import {
  ProvisioningResult,
  SCHEME_TOKENIZATION_CODES,
  SchemeToken,
  SchemeTokenizationCode,
  TokenizationContext,
  TokenizationResult,
  TokenServiceProvider,
} from './token-service-provider';

/**
 * The built-in token service provider of test merchants, driven by magic values
 * (docs/token-service-provider-simulator.md):
 * - scheme tokenization: `sourceOfFunds.provided.card.nameOnCard` set to one of the
 *   SCHEME_TOKENIZATION_* codes (or the code without that prefix, e.g. `DECLINED`) answers that
 *   code; any other name, or none, succeeds;
 * - push provisioning: `sourceOfFunds.schemeTokenProvisioningIdentifier` set the same way
 *   answers that code; any other identifier succeeds and yields the gateway's test card
 *   (5123450000000008, expiry 01/39, which the test acquirer approves).
 * Scheme token numbers are derived from the card (same BIN and length, a 9 after the BIN, Luhn
 * valid) so the same card always gets the same simulated scheme token: under the vault's
 * fingerprint key (HMAC), as every value derived from a card number is (ARCHITECTURE 6). A plain
 * hash could be reversed by trying the few billion numbers behind the BIN; keyed, the number
 * tells nothing about the card to whoever lacks the key. The provider's reference, kept in clear,
 * is random: a real provider's reference is its own identifier, and one derived from the card
 * would link the card across tokens, repositories and merchants.
 */
export const SIMULATOR_PROVISIONED_CARD = '5123450000000008';
const SIMULATOR_PROVISIONED_EXPIRY = { month: '1', year: '39' };

export class SimulatedTokenServiceProvider implements TokenServiceProvider {
  constructor(private readonly fingerprinter: Fingerprinter) {}

  async tokenize(card: CardInstrument, context: TokenizationContext): Promise<TokenizationResult> {
    const code = magicCode(context.nameOnCard) ?? 'SCHEME_TOKENIZATION_SUCCESSFUL';
    return code === 'SCHEME_TOKENIZATION_DECLINED' || code === 'SCHEME_TOKENIZATION_ERROR'
      ? { code }
      : { code, schemeToken: simulatedSchemeToken(this.fingerprinter, card) };
  }

  async provision(provisioningIdentifier: string): Promise<ProvisioningResult> {
    const code = magicCode(provisioningIdentifier) ?? 'SCHEME_TOKENIZATION_SUCCESSFUL';
    if (code === 'SCHEME_TOKENIZATION_DECLINED' || code === 'SCHEME_TOKENIZATION_ERROR') {
      return { code };
    }
    const card: CardInstrument = {
      type: 'CARD',
      pan: Pan.of(SIMULATOR_PROVISIONED_CARD),
      expiry: CardExpiry.of(SIMULATOR_PROVISIONED_EXPIRY.month, SIMULATOR_PROVISIONED_EXPIRY.year),
    };
    return { code, card, schemeToken: simulatedSchemeToken(this.fingerprinter, card) };
  }
}

/** The simulator's scheme token number for a card, under the vault's fingerprint key (tests use it to prove it is stored sealed). */
export function simulatedSchemeTokenNumber(fingerprinter: Fingerprinter, pan: Pan): string {
  // Its own kind: never equal to the repository fingerprint of the card (kind CARD), nor linkable to it.
  const digest = fingerprinter.fingerprint(SIMULATOR_SCOPE, 'SCHEME_TOKEN', pan.reveal());
  let middle = '';
  for (let i = 0; middle.length < pan.length - 8; i++) {
    middle += String(digest[i % digest.length] % 10);
  }
  const payload = `${pan.bin}9${middle}`;
  return payload + luhnCheckDigit(payload);
}

const SIMULATOR_SCOPE = 'token-service-provider-simulator';

function simulatedSchemeToken(fingerprinter: Fingerprinter, card: CardInstrument): SchemeToken {
  const number = Pan.of(simulatedSchemeTokenNumber(fingerprinter, card.pan));
  return { reference: `SIM-${randomBytes(12).toString('hex')}`, number, expiry: card.expiry };
}

/** A code, or its name without the prefix (the longest code does not fit a provisioning identifier). */
function magicCode(value: string | undefined): SchemeTokenizationCode | undefined {
  return SCHEME_TOKENIZATION_CODES.find((code) => code === value || code === `${PREFIX}${value}`);
}

const PREFIX = 'SCHEME_TOKENIZATION_';
