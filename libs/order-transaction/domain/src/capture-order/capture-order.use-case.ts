import { Injectable } from '@nestjs/common';
import { CaptureRequest, OperationReply, SUBJECTS } from '@gateway/contracts';
import { FollowOnOperation, RunFollowOnOperation } from '../card-operation/follow-on-operation';
import { CardOperationCommand } from '../card-operation/reserved-operation';
import { amountRetry } from '../ledger-protocol/ledger-checks';
import { planCapture } from './capture-plan';

export type CaptureCommand = CardOperationCommand<CaptureRequest>;

/**
 * `apiOperation: CAPTURE` of an authorisation, in parts and several times up to its amount
 * (capture-plan.ts; the ledger holds the limit again when it reserves the capture), sent to the
 * acquirer by the authorisation's acquirer reference, or for a browser payment's authorisation
 * to its provider through browser-payment, the capture's transaction id its idempotency key.
 */
const CAPTURE: FollowOnOperation<CaptureRequest> = {
  apiOperation: 'CAPTURE',
  doing: 'captured',
  targetTypes: ['AUTHORIZATION'],
  plan: (request, order, orderId) => {
    const { amount, taxAmount, target, route } = planCapture(request, order, orderId);
    return { type: 'CAPTURE', amount, taxAmount, target, route, fundingType: target.fundingType ?? 'CARD' };
  },
  retry: (request) => amountRetry(request.transaction),
  call: (connector, context, authorization, plan) => connector.capture({ ...context, amount: plan.amount, authorization }),
  atProvider: ({ envelope, orderId, transactionId }, plan) => ({
    subject: SUBJECTS.browserPayment.capture,
    message: { envelope, orderId, transactionId, targetTransactionId: plan.target.id, amount: plan.amount.toFixed(), currency: plan.amount.currency },
  }),
};

@Injectable()
export class CaptureOrder {
  constructor(private readonly followOn: RunFollowOnOperation) {}

  execute(command: CaptureCommand): Promise<OperationReply> {
    return this.followOn.execute(CAPTURE, command);
  }
}
