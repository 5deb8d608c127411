import { Injectable } from '@nestjs/common';
import { OperationReply, SUBJECTS, VoidRequest } from '@gateway/contracts';
import { FollowOnOperation, FollowOnPlan, RunFollowOnOperation } from '../card-operation/follow-on-operation';
import { VOIDABLE_TYPES } from '../card-operation/order-transactions';
import { CardOperationCommand } from '../card-operation/reserved-operation';
import { planVoid, VoidPlan } from './void-plan';

export type VoidCommand = CardOperationCommand<VoidRequest>;

/**
 * `apiOperation: VOID`: undoes an authorisation, capture, payment or refund of the order whole
 * (VOID_AUTHORIZATION, VOID_CAPTURE, VOID_PAYMENT, VOID_REFUND; void-plan.ts), by the target's
 * acquirer reference; a browser payment's authorisation is voided at its provider through
 * browser-payment. The order is CANCELLED when its initial transaction is voided
 * (derive-order-state). A pending void blocks a second void of the same target until it completes.
 */
const VOID: FollowOnOperation<VoidRequest, FollowOnPlan & VoidPlan> = {
  apiOperation: 'VOID',
  doing: 'voided',
  targetTypes: VOIDABLE_TYPES,
  plan: (request, order, orderId) => {
    const plan = planVoid(request, order, orderId);
    return { ...plan, ...(plan.target.fundingType ? { fundingType: plan.target.fundingType } : {}) };
  },
  // A void undoes its target whole: the target is all it asks for.
  retry: (request) => ({ targetTransactionId: request.transaction.targetTransactionId }),
  call: (connector, context, target, plan) => connector.void({ ...context, target, targetType: plan.target.type }),
  atProvider: ({ envelope, orderId, transactionId }, plan) => ({
    subject: SUBJECTS.browserPayment.void,
    message: { envelope, orderId, transactionId, targetTransactionId: plan.target.id },
  }),
};

@Injectable()
export class VoidTransaction {
  constructor(private readonly followOn: RunFollowOnOperation) {}

  execute(command: VoidCommand): Promise<OperationReply> {
    return this.followOn.execute(VOID, command);
  }
}
