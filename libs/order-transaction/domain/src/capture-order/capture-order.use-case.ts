import { Injectable } from '@nestjs/common';
import { AcquirerRegistry } from '@gateway/acquirer';
import { CaptureRequest, GatewayError, JsonObject, OperationReply, RecordMode, RecordOperationMessage } from '@gateway/contracts';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { canonicalRequestHash } from '@gateway/platform';
import { BeginOperation } from '../begin-operation/begin-operation.use-case';
import { acquirerReferenceOf } from '../card-operation/acquirer-reference';
import { CardOutcome, outcomeOfFollowOn } from '../card-operation/card-outcome';
import { followOnOrderGroup, followOnResponseBody } from '../card-operation/follow-on-response';
import { CardOperationCommand, RunReservedOperation } from '../card-operation/reserved-operation';
import { CapturePlan, planCapture } from './capture-plan';

export type CaptureCommand = CardOperationCommand<CaptureRequest>;

const API_OPERATION = 'CAPTURE';
const RESERVED: CardOutcome = { result: 'PENDING', gatewayCode: 'PENDING' };

/**
 * `apiOperation: CAPTURE` of an authorisation, in parts and several times up to its amount.
 * The capture is reserved on the locked order row first, where the ledger's capture limit holds
 * whatever raced it, then sent to the acquirer by the authorisation's acquirer reference (no
 * card is needed, so never through the vault), then recorded.
 */
@Injectable()
export class CaptureOrder {
  constructor(
    private readonly begin: BeginOperation,
    private readonly reserved: RunReservedOperation,
    private readonly ledger: LedgerRepository,
    private readonly acquirers: AcquirerRegistry,
  ) {}

  async execute(command: CaptureCommand): Promise<OperationReply> {
    const { envelope, orderId, transactionId, request } = command;
    const requestHash = canonicalRequestHash(command.body);
    const begun = await this.begin.execute({ envelope, orderId, transactionId, apiOperation: API_OPERATION, requestHash });
    if (begun.outcome === 'REPLAY') {
      return { body: begun.body };
    }
    const plan = planCapture(request, begun.order, orderId);
    const targetBody = (await this.ledger.findTransactionResponse(envelope.merchant.id, orderId, plan.target.id))?.body ?? null;
    const authorization = acquirerReferenceOf(targetBody, plan.target.id, 'captured');
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
        outcomeOfFollowOn(await connector.capture({ merchantId: envelope.merchant.id, orderId, transactionId, amount: plan.amount, authorization })),
      completion: (outcome) => message(outcome, 'UPDATE'),
      unavailable: () => GatewayError.serverFailed(),
    });
    return { body };
  }
}

function recordMessage(
  command: CaptureCommand,
  plan: CapturePlan,
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
      type: 'CAPTURE',
      amount: plan.amount.toFixed(),
      currency,
      result: outcome.result,
      gatewayCode: outcome.gatewayCode,
      targetTransactionId: plan.target.id,
      fundingType: plan.target.fundingType ?? 'CARD',
      ...(plan.taxAmount ? { taxAmount: plan.taxAmount.toFixed() } : {}),
    },
    response: followOnResponseBody(request, currency, targetBody, mode === 'UPDATE' ? outcome : undefined, plan.taxAmount),
  };
}
