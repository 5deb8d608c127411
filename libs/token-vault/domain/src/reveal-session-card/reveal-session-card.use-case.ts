import { Injectable } from '@nestjs/common';
import { AuthMethod, MerchantContext, RevealCardReply, unmaskRequested } from '@gateway/contracts';
import { refuseIfPastDeadline } from '@gateway/platform';
import { SessionCardSealing } from '../session-cards/session-card-sealing';

export interface RevealSessionCardCommand {
  merchant: MerchantContext;
  authMethod: AuthMethod;
  bindingId: string;
  sealed: string;
  /** When the edge stops waiting (RevealCardMessage.deadline); absent: never refused for time. */
  deadline?: number;
}

/**
 * `token-vault.card.reveal.v1`: a session's card number for an authorised UNMASK retrieval
 * (docs/decisions/unmasking.md). The rule is applied here again, on the envelope the edge
 * forwarded, before anything is opened; the security code is never revealed.
 */
@Injectable()
export class RevealSessionCard {
  constructor(private readonly sealing: SessionCardSealing) {}

  /**
   * Refused unprocessed (PastDeadlineError) once the edge's deadline has passed, before the card
   * is opened: a reveal changes nothing, and an answer the edge no longer waits for is dropped
   * (docs/decisions/operation-deadline.md, amendment on the last reads).
   */
  async execute(command: RevealSessionCardCommand): Promise<RevealCardReply> {
    refuseIfPastDeadline(command.deadline);
    unmaskRequested({ responseControls: { sensitiveData: 'UNMASK' } }, command.merchant, command.authMethod);
    const card = await this.sealing.open({ merchantId: command.merchant.id, bindingId: command.bindingId }, command.sealed);
    return card.number ? { number: card.number.reveal() } : {};
  }
}
