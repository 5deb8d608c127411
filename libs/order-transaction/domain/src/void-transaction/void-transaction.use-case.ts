import { Injectable } from '@nestjs/common';
import { AcquirerRegistry } from '@gateway/acquirer';
import { GatewayError, JsonObject, OperationReply, RecordMode, RecordOperationMessage, VoidRequest } from '@gateway/contracts';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { canonicalRequestHash } from '@gateway/platform';
import { BeginOperation } from '../begin-operation/begin-operation.use-case';
import { acquirerReferenceOf } from '../card-operation/acquirer-reference';
import { CardOutcome, outcomeOfFollowOn } from '../card-operation/card-outcome';
import { followOnOrderGroup, followOnResponseBody } from '../card-operation/follow-on-response';
import { CardOperationCommand, RunReservedOperation } from '../card-operation/reserved-operation';
import { planVoid, VoidPlan } from './void-plan';

export type VoidCommand = CardOperationCommand<VoidRequest>;

const API_OPERATION = 'VOID';
const RESERVED: CardOutcome = { result: 'PENDING', gatewayCode: 'PENDING' };

/**
 * `apiOperation: VOID`: undoes an authorisation, capture, payment or refund of the order whole
 * (VOID_AUTHORIZATION, VOID_CAPTURE, VOID_PAYMENT, VOID_REFUND), by the target's acquirer
 * reference (no card, never through the vault). The order is CANCELLED when its initial
 * transaction is voided (derive-order-state). A pending void blocks a second void of the same
 * target until it completes.
 */
@Injectable()
export class VoidTransaction {
  constructor(
    private readonly begin: BeginOperation,
    private readonly reserved: RunReservedOperation,
    private readonly ledger: LedgerRepository,
    private readonly acquirers: AcquirerRegistry,
  ) {}

  async execute(command: VoidCommand): Promise<OperationReply> {
    const { envelope, orderId, transactionId, request } = command;
    const requestHash = canonicalRequestHash(command.body);
    const begun = await this.begin.execute({ envelope, orderId, transactionId, apiOperation: API_OPERATION, requestHash });
    if (begun.outcome === 'REPLAY') {
      return { body: begun.body };
    }
    const plan = planVoid(request, begun.order, orderId);
    const targetBody = (await this.ledger.findTransactionResponse(envelope.merchant.id, orderId, plan.target.id))?.body ?? null;
    const target = acquirerReferenceOf(targetBody, plan.target.id, 'voided');
    const connector = this.acquirers.forMerchant(envelope.merchant);
    const message = (outcome: CardOutcome, mode: RecordMode) => recordMessage(command, plan, requestHash, targetBody, outcome, mode);
    const body = await this.reserved.execute({
      envelope,
      orderId,
      transactionId,
      apiOperation: API_OPERATION,
      requestHash,
      reservation: message(RESERVED, 'CREATE'),
      perform: async () =>
        outcomeOfFollowOn(await connector.void({ merchantId: envelope.merchant.id, orderId, transactionId, target, targetType: plan.target.type })),
      completion: (outcome) => message(outcome, 'UPDATE'),
      unavailable: () => GatewayError.serverFailed(),
    });
    return { body };
  }
}

function recordMessage(
  command: VoidCommand,
  plan: VoidPlan,
  requestHash: string,
  targetBody: JsonObject | null,
  outcome: CardOutcome,
  mode: RecordMode,
): RecordOperationMessage {
  const { request } = command;
  const currency = plan.amount.currency;
  const details = followOnOrderGroup(request);
  return {
    envelope: command.envelope,
    orderId: command.orderId,
    transactionId: command.transactionId,
    apiOperation: API_OPERATION,
    requestHash,
    mode,
    order: { currency, ...(Object.keys(details).length > 0 ? { details } : {}) },
    transaction: {
      type: plan.type,
      amount: plan.amount.toFixed(),
      currency,
      result: outcome.result,
      gatewayCode: outcome.gatewayCode,
      targetTransactionId: plan.target.id,
      ...(plan.target.fundingType ? { fundingType: plan.target.fundingType } : {}),
    },
    response: followOnResponseBody(request, currency, targetBody, mode === 'UPDATE' ? outcome : undefined),
  };
}
