import { Inject, Injectable } from '@nestjs/common';
import type { Address, RequestEnvelope, VerificationStrategy } from '@gateway/contracts';
import type { Secret } from '@gateway/crypto';
import { isKnownCardRange } from '../cards/card-ranges';
import type { CardInstrument } from '../instrument/instrument';

/** The token operation's verification codes (spec: Create or update token, response.gatewayCode). */
export type VerificationCode =
  | 'NO_VERIFICATION_PERFORMED'
  | 'BASIC_VERIFICATION_SUCCESSFUL'
  | 'EXTERNAL_VERIFICATION_SUCCESSFUL'
  | 'EXTERNAL_VERIFICATION_BLOCKED'
  | 'EXTERNAL_VERIFICATION_DECLINED'
  | 'EXTERNAL_VERIFICATION_DECLINED_AUTHENTICATION_REQUIRED'
  | 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD'
  | 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'
  | 'EXTERNAL_VERIFICATION_PROCESSING_ERROR';

export interface VerificationOutcome {
  strategy: VerificationStrategy;
  /** A failed verification stores nothing and answers result FAILURE. */
  passed: boolean;
  gatewayCode: VerificationCode;
}

export interface AcquirerVerificationRequest {
  /** The token request's envelope: the merchant, and the request id that ties log lines together. */
  envelope: RequestEnvelope;
  card: CardInstrument;
  /**
   * The merchant sent this card number in clear in this request, and no payment session's card
   * completes it. Otherwise the card is in the vault's custody (the stored token's number, a
   * p2pe-decrypted or provisioned one, a session's card and security code) and never leaves it.
   */
  numberFromRequest: boolean;
  securityCode?: Secret<string>;
  nameOnCard?: string;
  billingAddress?: Address;
  /** `transaction.currency`: the acquirer needs it (ACQUIRER refuses a request without it). */
  currency?: string;
  /** How the acquirer references the call (a token save has no order): the token, or the request id, with a suffix unique per verification. */
  reference: string;
}

/** ACQUIRER verification: the card verified at the merchant's acquirer (AcquirerCardVerifier). */
export interface AcquirerVerifier {
  verify(request: AcquirerVerificationRequest): Promise<VerificationOutcome>;
}

export const ACQUIRER_VERIFIER = Symbol('ACQUIRER_VERIFIER');

/**
 * BASIC: the number's syntax (9 to 19 digits, checked when it was read), its Luhn check digit
 * and its BIN range, all without leaving the gateway. A failure is EXTERNAL_VERIFICATION_BLOCKED: the
 * spec's token list has no BASIC failure code, and "blocked" (refused by the gateway's own
 * rules, not declined by an issuer) is the closest (docs/decisions/token-vault-rules.md).
 */
export function basicVerification(card: CardInstrument): VerificationOutcome {
  const passed = card.pan.passesLuhn() && isKnownCardRange(card.pan);
  return { strategy: 'BASIC', passed, gatewayCode: passed ? 'BASIC_VERIFICATION_SUCCESSFUL' : 'EXTERNAL_VERIFICATION_BLOCKED' };
}

export const NO_VERIFICATION: VerificationOutcome = { strategy: 'NONE', passed: true, gatewayCode: 'NO_VERIFICATION_PERFORMED' };

@Injectable()
export class CardVerification {
  constructor(@Inject(ACQUIRER_VERIFIER) private readonly acquirer: AcquirerVerifier) {}

  async verify(strategy: VerificationStrategy, request: AcquirerVerificationRequest): Promise<VerificationOutcome> {
    switch (strategy) {
      case 'NONE':
        return NO_VERIFICATION;
      case 'BASIC':
        return basicVerification(request.card);
      case 'ACQUIRER':
        return this.acquirer.verify(request);
    }
  }
}
