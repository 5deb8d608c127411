import { Injectable } from '@nestjs/common';
import { CaptureRequest, OperationReply } from '@gateway/contracts';
import { FollowOnOperation, RunFollowOnOperation } from '../card-operation/follow-on-operation';
import { CardOperationCommand } from '../card-operation/reserved-operation';
import { planCapture } from './capture-plan';

export type CaptureCommand = CardOperationCommand<CaptureRequest>;

/**
 * `apiOperation: CAPTURE` of an authorisation, in parts and several times up to its amount
 * (capture-plan.ts; the ledger holds the limit again when it reserves the capture), sent to the
 * acquirer by the authorisation's acquirer reference.
 */
const CAPTURE: FollowOnOperation<CaptureRequest> = {
  apiOperation: 'CAPTURE',
  doing: 'captured',
  targetTypes: ['AUTHORIZATION'],
  plan: (request, order, orderId) => {
    const { amount, taxAmount, target } = planCapture(request, order, orderId);
    return { type: 'CAPTURE', amount, taxAmount, target, fundingType: target.fundingType ?? 'CARD' };
  },
  call: (connector, context, authorization, plan) => connector.capture({ ...context, amount: plan.amount, authorization }),
};

@Injectable()
export class CaptureOrder {
  constructor(private readonly followOn: RunFollowOnOperation) {}

  execute(command: CaptureCommand): Promise<OperationReply> {
    return this.followOn.execute(CAPTURE, command);
  }
}
