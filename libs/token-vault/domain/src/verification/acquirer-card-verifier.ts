import { Inject, Injectable } from '@nestjs/common';
import { AcquirerRegistry, SecurityCode, tokenVerificationRequest } from '@gateway/acquirer';
import { CardVerificationMessage, CardVerificationReply, GatewayError } from '@gateway/contracts';
import type { AcquirerVerificationRequest, AcquirerVerifier, VerificationOutcome } from './card-verification';
import { AcquirerVerificationAnswer, externalVerificationOutcome } from './external-verification';

/** `verification.card.verify.v1`, answered by the verification service. */
export interface CardVerificationService {
  verifyCard(message: CardVerificationMessage): Promise<CardVerificationReply>;
}

export const CARD_VERIFICATION_SERVICE = Symbol('CARD_VERIFICATION_SERVICE');

/**
 * ACQUIRER verification (spec token rule 9): the card is verified at the merchant's acquirer and
 * the answer mapped to an EXTERNAL_VERIFICATION_* code.
 *
 * A number the merchant sent in clear in this request goes to the verification service, which
 * owns card verification (ARCHITECTURE 1). A number in the vault's custody (an update that keeps
 * the stored number, a p2pe-decrypted or push-provisioned card) never leaves the vault in clear
 * (card custody): the vault verifies it with its own acquirer connector, exactly as it does for
 * `token-vault.acquirer.call.v1` (docs/decisions/token-vault-acquirer-verification.md).
 * Either way the acquirer gets the same request, built in libs/acquirer (token-verification.ts),
 * the call is counted in `gateway_acquirer_requests_total`, and no ledger record is written: a
 * token save is not an order operation.
 */
@Injectable()
export class AcquirerCardVerifier implements AcquirerVerifier {
  constructor(
    @Inject(CARD_VERIFICATION_SERVICE) private readonly service: CardVerificationService,
    private readonly acquirers: AcquirerRegistry,
  ) {}

  async verify(request: AcquirerVerificationRequest): Promise<VerificationOutcome> {
    const inputs = requiredInputs(request);
    const answer = request.numberFromRequest
      ? await this.service.verifyCard(verificationMessage(request, inputs))
      : await this.inCustody(request, inputs);
    return externalVerificationOutcome(answer);
  }

  private inCustody(request: AcquirerVerificationRequest, inputs: RequiredInputs): Promise<AcquirerVerificationAnswer> {
    const acquirerRequest = tokenVerificationRequest({
      merchantId: request.envelope.merchant.id,
      reference: request.reference,
      currency: inputs.currency,
      card: {
        number: request.card.pan,
        expiry: inputs.expiry,
        ...(request.securityCode ? { securityCode: SecurityCode.of(request.securityCode.reveal()) } : {}),
        ...(request.nameOnCard !== undefined ? { nameOnCard: request.nameOnCard } : {}),
      },
      ...(request.billingAddress ? { billingAddress: request.billingAddress } : {}),
    });
    return this.acquirers.forMerchant(request.envelope.merchant).verify(acquirerRequest);
  }
}

interface RequiredInputs {
  currency: string;
  expiry: { month: string; year: string };
}

function requiredInputs(request: AcquirerVerificationRequest): RequiredInputs {
  if (request.currency === undefined) {
    throw GatewayError.invalidField(
      'transaction.currency',
      'MISSING',
      'Missing parameter transaction.currency: ACQUIRER verification verifies the card in a currency.',
    );
  }
  const expiry = request.card.expiry;
  if (!expiry) {
    // The save rules require an expiry for ACQUIRER before verification runs.
    throw new Error('ACQUIRER verification without an expiry');
  }
  return { currency: request.currency, expiry: { month: String(expiry.month), year: expiry.mmyy.slice(2) } };
}

/** The message of `verification.card.verify.v1`: the number in clear, so only for numbers from the request. */
function verificationMessage(request: AcquirerVerificationRequest, inputs: RequiredInputs): CardVerificationMessage {
  return {
    envelope: request.envelope,
    card: {
      number: request.card.pan.reveal(),
      expiry: inputs.expiry,
      ...(request.securityCode ? { securityCode: request.securityCode.reveal() } : {}),
      ...(request.nameOnCard !== undefined ? { nameOnCard: request.nameOnCard } : {}),
    },
    currency: inputs.currency,
    ...(request.billingAddress ? { billingAddress: { ...request.billingAddress } } : {}),
    reference: request.reference,
  };
}
