import { Injectable } from '@nestjs/common';
import type { PayerResolveReply, PayerTokenMessage } from '@gateway/contracts';
import { PayerJourneys } from './payer-journeys';

/**
 * Which order a payer's token belongs to, so the edge can lock that order before a step that
 * changes it (ARCHITECTURE 4.9). Changes nothing; a dead token gets its page straight away.
 */
@Injectable()
export class ResolvePayerToken {
  constructor(private readonly journeys: PayerJourneys) {}

  async execute(message: PayerTokenMessage): Promise<PayerResolveReply> {
    const found = await this.journeys.find(message.provider, message.token);
    if (found.page) {
      return found.page;
    }
    return { kind: 'order', merchantId: found.payment.merchantId, orderId: found.payment.orderId };
  }
}
