import { createHash } from 'node:crypto';
import { luhnCheckDigit, Pan } from '@gateway/crypto';
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
 * valid) so the same card always gets the same simulated scheme token.
 */
export const SIMULATOR_PROVISIONED_CARD = '5123450000000008';
const SIMULATOR_PROVISIONED_EXPIRY = { month: '1', year: '39' };

export class SimulatedTokenServiceProvider implements TokenServiceProvider {
  async tokenize(card: CardInstrument, context: TokenizationContext): Promise<TokenizationResult> {
    const code = magicCode(context.nameOnCard) ?? 'SCHEME_TOKENIZATION_SUCCESSFUL';
    return code === 'SCHEME_TOKENIZATION_DECLINED' || code === 'SCHEME_TOKENIZATION_ERROR'
      ? { code }
      : { code, schemeToken: simulatedSchemeToken(card) };
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
    return { code, card, schemeToken: simulatedSchemeToken(card) };
  }
}

/** The simulator's scheme token number for a card (tests use it to prove it is stored sealed). */
export function simulatedSchemeTokenNumber(pan: Pan): string {
  const digest = createHash('sha256').update(`simulated-scheme-token:${pan.reveal()}`).digest();
  let middle = '';
  for (let i = 0; middle.length < pan.length - 8; i++) {
    middle += String(digest[i % digest.length] % 10);
  }
  const payload = `${pan.bin}9${middle}`;
  return payload + luhnCheckDigit(payload);
}

function simulatedSchemeToken(card: CardInstrument): SchemeToken {
  const number = Pan.of(simulatedSchemeTokenNumber(card.pan));
  return { reference: `SIM-${createHash('sha256').update(number.reveal()).digest('hex').slice(0, 24)}`, number, expiry: card.expiry };
}

/** A code, or its name without the prefix (the longest code does not fit a provisioning identifier). */
function magicCode(value: string | undefined): SchemeTokenizationCode | undefined {
  return SCHEME_TOKENIZATION_CODES.find((code) => code === value || code === `${PREFIX}${value}`);
}

const PREFIX = 'SCHEME_TOKENIZATION_';
