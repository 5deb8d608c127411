import { Injectable } from '@nestjs/common';
import { ExplicitCardFields, MaskedCard, MerchantContext, SealCardReply } from '@gateway/contracts';
import { Pan } from '@gateway/crypto';
import { refuseIfPastDeadline } from '@gateway/platform';
import { maskedCard } from '../cards/masked-card';
import { SealBinding, SessionCard, SessionCardSealing } from '../session-cards/session-card-sealing';

export interface SealSessionCardCommand {
  merchant: MerchantContext;
  bindingId: string;
  card: ExplicitCardFields;
  /** The session's current sealed value: its fields are kept unless `card` gives them again. */
  previous?: string;
  /** Leaves the security code out (an operation used it). */
  withoutSecurityCode?: boolean;
  /** When the edge stops waiting (SealCardMessage.deadline); absent: never refused for time. */
  deadline?: number;
}

/**
 * `token-vault.card.seal.v1`: a payment session's card details sealed for the edge to keep in
 * the session. A session is updated field by field (a later update may bring only the security
 * code), so the fields of the previous sealed value are carried over unless given again.
 */
@Injectable()
export class SealSessionCard {
  constructor(private readonly sealing: SessionCardSealing) {}

  /**
   * Refused unprocessed (PastDeadlineError) once the edge's deadline has passed, before the
   * previous value is opened: a seal changes nothing here, and an answer the edge no longer waits
   * for is one it never keeps, so refusing it and doing it late leave the same state
   * (docs/decisions/operation-deadline.md, amendment on reads).
   */
  async execute(command: SealSessionCardCommand): Promise<SealCardReply> {
    refuseIfPastDeadline(command.deadline);
    const binding: SealBinding = { merchantId: command.merchant.id, bindingId: command.bindingId };
    const previous = await this.previousCard(binding, command);
    const merged: ExplicitCardFields = { ...revealed(previous), ...definedFields(command.card) };
    if (command.withoutSecurityCode) {
      delete merged.securityCode;
    }
    return {
      sealed: this.sealing.seal(binding, merged),
      card: maskedSessionCard(merged),
      securityCodePresent: merged.securityCode !== undefined,
    };
  }

  /**
   * An update replaces a previous value whose data key was destroyed (the payer enters the card
   * again); taking the security code out of such a value is refused like any use of it, so the
   * operation waiting on it is not sent.
   */
  private previousCard(binding: SealBinding, command: SealSessionCardCommand): Promise<SessionCard> {
    if (command.previous === undefined) {
      return Promise.resolve({});
    }
    return command.withoutSecurityCode
      ? this.sealing.open(binding, command.previous)
      : this.sealing.openPrevious(binding, command.previous);
  }
}

function revealed(card: SessionCard): ExplicitCardFields {
  return definedFields({
    number: card.number?.reveal(),
    expiry: card.expiry,
    securityCode: card.securityCode?.reveal(),
    nameOnCard: card.nameOnCard,
  });
}

/** Only the fields given: an absent field must not erase the previous value. */
function definedFields(card: ExplicitCardFields): ExplicitCardFields {
  return Object.fromEntries(Object.entries(card).filter(([, value]) => value !== undefined)) as ExplicitCardFields;
}

function maskedSessionCard(card: ExplicitCardFields): Partial<MaskedCard> {
  return maskedCard({ ...card, number: card.number !== undefined ? Pan.of(card.number) : undefined });
}
