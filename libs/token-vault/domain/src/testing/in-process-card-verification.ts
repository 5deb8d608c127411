import { AcquirerRegistry, answerCardVerification } from '@gateway/acquirer';
import { CardVerificationMessage, CardVerificationReply } from '@gateway/contracts';
import { parseMessage } from '@gateway/platform';
import type { CardVerificationService } from '../verification/acquirer-card-verifier';

/**
 * What the verification service does with `verification.card.verify.v1`, in process, for unit
 * tests of the vault: the message crosses as JSON and is validated as its handler does, then
 * answered by the service's own code (answerCardVerification, libs/acquirer) with the same test
 * acquirer through a registry, so the stand-in cannot drift from the service. Records the
 * messages it got, so a test can tell which card numbers left the vault.
 */
export class InProcessCardVerification implements CardVerificationService {
  readonly received: CardVerificationMessage[] = [];

  constructor(private readonly acquirers: AcquirerRegistry) {}

  async verifyCard(message: CardVerificationMessage): Promise<CardVerificationReply> {
    this.received.push(message);
    const delivered = parseMessage(CardVerificationMessage, JSON.parse(JSON.stringify(message)));
    return answerCardVerification(this.acquirers, delivered);
  }
}
