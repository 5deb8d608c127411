import type { MerchantContext } from '@gateway/contracts';
import type { Pan } from '@gateway/crypto';
import type { CardExpiry } from '../cards/card-expiry';
import type { CardInstrument } from '../instrument/instrument';

export const SCHEME_TOKENIZATION_CODES = [
  'SCHEME_TOKENIZATION_SUCCESSFUL',
  'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED',
  'SCHEME_TOKENIZATION_DECLINED',
  'SCHEME_TOKENIZATION_ERROR',
] as const;
export type SchemeTokenizationCode = (typeof SCHEME_TOKENIZATION_CODES)[number];

/** A scheme token (network token): its own number and expiry, and the provider's reference. */
export interface SchemeToken {
  reference: string;
  number: Pan;
  expiry: CardExpiry | null;
}

/**
 * What the token service provider may see besides the card (token rule 7: name on card,
 * billing address and customer details are used for this request and never stored).
 */
export interface TokenizationContext {
  nameOnCard?: string;
  billing?: unknown;
  customer?: unknown;
}

export interface TokenizationResult {
  code: SchemeTokenizationCode;
  /** Present for the SUCCESSFUL codes. */
  schemeToken?: SchemeToken;
}

export interface ProvisioningResult {
  code: SchemeTokenizationCode;
  /** The card the issuer made available, with its scheme token (SUCCESSFUL codes only). */
  card?: CardInstrument;
  schemeToken?: SchemeToken;
}

/**
 * A token service provider (the schemes' network tokenization services): scheme tokenization
 * of a stored card (token rule 6) and push provisioning (rule 8: the issuer made a card
 * available under a provisioning identifier; the provider returns card and scheme token).
 */
export interface TokenServiceProvider {
  tokenize(card: CardInstrument, context: TokenizationContext): Promise<TokenizationResult>;
  provision(provisioningIdentifier: string, context: TokenizationContext): Promise<ProvisioningResult>;
}

/** Chooses the provider for a merchant: test merchants get the simulator. */
export interface TokenServiceProviders {
  forMerchant(merchant: MerchantContext): TokenServiceProvider;
}

export const TOKEN_SERVICE_PROVIDERS = Symbol('TOKEN_SERVICE_PROVIDERS');

export function isSuccessful(code: SchemeTokenizationCode): boolean {
  return code === 'SCHEME_TOKENIZATION_SUCCESSFUL' || code === 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED';
}
