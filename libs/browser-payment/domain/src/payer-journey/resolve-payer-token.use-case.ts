import { Injectable } from '@nestjs/common';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
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
    const returning = message.returning === true;
    const found = await this.journeys.find(message.provider, message.token, undefined, { returning });
    if (found.ended && returning) {
      // An ended journey's return is answered under the lock too: after a return in progress.
      // Its out URL is answered its page here, as before: nothing to lock for.
      return orderOf(found.ended);
    }
    if (found.page) {
      return found.page;
    }
    return orderOf(found.payment);
  }
}

function orderOf(payment: BrowserPaymentRow): PayerResolveReply {
  return { kind: 'order', merchantId: payment.merchantId, orderId: payment.orderId };
}
