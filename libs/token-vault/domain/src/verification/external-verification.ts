import type { VerificationCode, VerificationOutcome } from './card-verification';

/** What the acquirer answered, as `verification.card.verify.v1` and the connector carry it. */
export interface AcquirerVerificationAnswer {
  gatewayCode: string;
  cardSecurityCode?: { gatewayCode: string };
}

const APPROVED = new Set(['APPROVED', 'APPROVED_PENDING_SETTLEMENT', 'PARTIALLY_APPROVED']);
const DECLINED = new Set(['DECLINED', 'INSUFFICIENT_FUNDS', 'REFERRED', 'NOT_SUPPORTED']);

/**
 * The token operation's EXTERNAL_VERIFICATION_* code for an acquirer's answer
 * (docs/decisions/token-vault-acquirer-verification.md). An approval whose security code did not
 * match is DECLINED_INVALID_CSC: a token is stored for later payments, and a card whose CSC the
 * issuer rejected is not the payer's to store. Outcomes where the issuer gave no decision
 * (TIMED_OUT, ACQUIRER_SYSTEM_ERROR, UNSPECIFIED_FAILURE, UNKNOWN) are PROCESSING_ERROR: the
 * merchant may retry, nothing was learned about the card.
 */
export function externalVerificationCode(answer: AcquirerVerificationAnswer): VerificationCode {
  if (APPROVED.has(answer.gatewayCode)) {
    return answer.cardSecurityCode?.gatewayCode === 'NO_MATCH' ? 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC' : 'EXTERNAL_VERIFICATION_SUCCESSFUL';
  }
  if (answer.gatewayCode === 'INVALID_CSC') {
    return 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC';
  }
  if (answer.gatewayCode === 'EXPIRED_CARD') {
    return 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD';
  }
  if (DECLINED.has(answer.gatewayCode)) {
    return 'EXTERNAL_VERIFICATION_DECLINED';
  }
  return 'EXTERNAL_VERIFICATION_PROCESSING_ERROR';
}

export function externalVerificationOutcome(answer: AcquirerVerificationAnswer): VerificationOutcome {
  const gatewayCode = externalVerificationCode(answer);
  return { strategy: 'ACQUIRER', passed: gatewayCode === 'EXTERNAL_VERIFICATION_SUCCESSFUL', gatewayCode };
}
