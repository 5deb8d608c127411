import { Inject, Injectable } from '@nestjs/common';
import { AcquirerRegistry, lookupBin, Pan, VerifyCardResult, withCardDetails } from '@gateway/acquirer';
import { GatewayError, JsonObject, OperationReply, RecordOperationMessage, requestHashBasis, TransactionResult } from '@gateway/contracts';
import type { SeenOrder } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, Metrics, refuseIfPastDeadline, RequestHasher } from '@gateway/platform';
import type { Counter } from 'prom-client';
import { STORED_CARD_ACQUIRER, StoredCardAcquirer } from '../card-custody/stored-card-acquirer';
import { Clock, CLOCK } from '../clock';
import { carriesStoredAgreementText } from '../../agreements/agreement-terms';
import { Agreements } from '../../agreements/agreements';
import { BeginOperation } from '../../begin-operation/begin-operation.use-case';
import { withCardNumber } from '../../ledger-response/unmasked-card';
import { RecordedOperation, RecordOperation } from '../../record-operation/record-operation.use-case';
import { assembleVerifyResponse, ECHOED_ORDER_FIELDS, VerifyResponseParts } from '../response/verify-response.assembler';
import { resolveCardType } from '../rules/card-type.rule';
import { planVerification, VerificationPlan, VerifyCardCommand } from './verification-plan';

export const UNRECORDED_VERIFICATIONS_METRIC = 'gateway_verifications_unrecorded_total';

/** What the acquirer answered, and what the response may show of the card. */
interface Verified {
  readonly result: VerifyCardResult;
  readonly nameOnCard?: string;
  readonly cardType?: string;
  /** The number the merchant sent, for a reply with UNMASK; never a stored card's. */
  readonly explicitNumber?: Pan;
}

/**
 * VERIFY (issue 4): begin with the ledger (a replay is answered as stored, with no acquirer
 * call), check the request's business rules, verify the card at the merchant's acquirer (an
 * explicit card directly; a stored card through the token vault, which alone opens it), apply
 * transaction filtering, and record the VERIFICATION with the ledger, whose stored body is the
 * answer. The ledger is this process's own (docs/decisions/verify-in-order-transaction.md): for
 * an explicit card, a VERIFY is one message from the edge and two statements. A request naming
 * `agreement.id` adds the agreement's read before the acquirer call and, when it establishes
 * the agreement, its insert after the record (docs/decisions/agreements.md).
 *
 * When the record fails after the acquirer answered, the error is the answer (ORDER_LOCK_LOST
 * becomes LOCK_FAILURE at the edge): a verification moves no funds and holds none, so there is
 * nothing to reverse at the acquirer, and the merchant may retry the same ids
 * (docs/decisions/verify-record-failure.md). The unrecorded call is logged with the acquirer's
 * references and counted, for reconciliation.
 */
@Injectable()
export class VerifyCard {
  private readonly unrecorded: Counter<string>;

  constructor(
    private readonly beginOperation: BeginOperation,
    private readonly recordOperation: RecordOperation,
    private readonly acquirers: AcquirerRegistry,
    @Inject(STORED_CARD_ACQUIRER) private readonly storedCards: StoredCardAcquirer,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
    private readonly requestHasher: RequestHasher,
    private readonly agreements: Agreements,
  ) {
    this.unrecorded = metrics.counter(
      UNRECORDED_VERIFICATIONS_METRIC,
      'Verifications the acquirer answered but the ledger did not record, by the error code of the record.',
      ['code'],
    );
  }

  async execute(command: VerifyCardCommand): Promise<OperationReply> {
    const requestHash = this.requestHasher.hash(requestHashBasis(command));
    const { reply: begun, seen } = await this.beginOperation.read({
      envelope: command.envelope,
      orderId: command.orderId,
      transactionId: command.transactionId,
      apiOperation: 'VERIFY',
      requestHash,
    });
    if (begun.outcome === 'REPLAY') {
      return { body: begun.body };
    }
    const now = this.clock();
    // One indexed read when the request names an agreement, none otherwise.
    const established = await this.agreements.established(command.envelope, command.request.agreement);
    const plan = planVerification(command, begun.order, now, established);
    // Nothing has happened yet; the acquirer call is the first thing that does (a verification
    // is recorded after it, and that record is never refused: docs/decisions/operation-deadline.md).
    refuseIfPastDeadline(command.deadline);
    const verified = await this.verifyAtAcquirer(command, plan);
    const parts = assembleVerifyResponse({
      merchantId: command.envelope.merchant.id,
      orderId: command.orderId,
      transactionId: command.transactionId,
      request: plan.request,
      card: { nameOnCard: verified.nameOnCard, sequenceNumber: plan.emv?.card.sequenceNumber },
      emv: plan.emv,
      posTerminal: plan.posTerminal,
      cardType: verified.cardType,
      acquirerResult: verified.result,
      merchantAvsRules: command.envelope.merchant.settings.transactionFiltering.avsResponseCodeRules,
      now,
    });
    const storedAgreementText = carriesStoredAgreementText(command.request.agreement, plan.request.agreement);
    const recorded = await this.record(command, requestHash, parts, verified.result, seen, storedAgreementText);
    await this.agreements.establishAfter({
      envelope: command.envelope,
      orderId: command.orderId,
      transactionId: command.transactionId,
      apiOperation: 'VERIFY',
      currency: plan.currency,
      agreement: plan.request.agreement,
      established,
      // The outcome as recorded, as AUTHORIZE and PAY read it: a copy of the request recorded
      // first (a replay) answers its own result, and only a recorded SUCCESS establishes.
      result: recorded.body.result as TransactionResult,
      at: now,
    });
    // A replay (the same request recorded first: a copy racing past begin) is answered as stored, as begin's replays are.
    return {
      body:
        plan.unmask && !recorded.replayed && verified.explicitNumber
          ? withCardNumber(recorded.body, verified.explicitNumber.reveal())
          : recorded.body,
    };
  }

  private async verifyAtAcquirer(command: VerifyCardCommand, plan: VerificationPlan): Promise<Verified> {
    const { source } = plan;
    if (source.kind === 'EXPLICIT') {
      const connector = this.acquirers.forMerchant(command.envelope.merchant);
      const result = await connector.verify(withCardDetails(plan.acquirerRequest, source.details));
      return {
        result,
        nameOnCard: source.details.nameOnCard,
        cardType: source.cardType,
        explicitNumber: source.details.number,
      };
    }
    const requested = plan.requestedCardType;
    const cardTypeOf = (bin: string) => resolveCardType(requested, lookupBin(bin).cardTypeSelection);
    // A card type is checked against the card's BIN before the acquirer is asked when the card
    // is a token's. A session's sealed card shows its BIN only in the vault's answer, so it is
    // checked on that answer (a verification moves no funds, so nothing needs reversing).
    const tokenOnly = source.from.sealed === undefined ? source.from.token : undefined;
    const cardTypeBefore =
      requested !== undefined && tokenOnly !== undefined ? cardTypeOf(await this.storedCards.binOf(command.envelope, tokenOnly)) : undefined;
    const { result, card } = await this.storedCards.verify({
      envelope: command.envelope,
      source: source.from,
      ...(source.explicit ? { explicit: source.explicit } : {}),
      request: plan.acquirerRequest,
    });
    const cardType = requested !== undefined && tokenOnly === undefined ? cardTypeOf(card.number.slice(0, 6)) : cardTypeBefore;
    return { result, nameOnCard: card.nameOnCard, cardType };
  }

  private async record(
    command: VerifyCardCommand,
    requestHash: string,
    parts: VerifyResponseParts,
    acquirerResult: VerifyCardResult,
    seen: SeenOrder | null,
    storedAgreementText: boolean,
  ): Promise<RecordedOperation> {
    const { body, outcome } = parts;
    const notificationUrl = command.request.order.notificationUrl;
    const message: RecordOperationMessage = {
      envelope: command.envelope,
      orderId: command.orderId,
      transactionId: command.transactionId,
      apiOperation: 'VERIFY',
      requestHash,
      mode: 'CREATE',
      ...(seen === null ? { newOrder: true } : {}),
      ...(storedAgreementText ? { storedAgreementText } : {}),
      // No order.amount: a new order takes the verification's 0, an existing one keeps its own.
      order: {
        currency: outcome.currency,
        details: orderDetails(body),
        ...(notificationUrl !== undefined ? { notificationUrl } : {}),
      },
      transaction: {
        type: outcome.type,
        amount: outcome.amount,
        currency: outcome.currency,
        result: outcome.result,
        gatewayCode: outcome.gatewayCode,
        fundingType: 'CARD',
      },
      response: body,
    };
    try {
      return await this.recordOperation.execute(message, 'RECORD', seen);
    } catch (err) {
      this.reportUnrecorded(command, acquirerResult, err);
      throw err;
    }
  }

  private reportUnrecorded(command: VerifyCardCommand, result: VerifyCardResult, err: unknown): void {
    const code = err instanceof GatewayError ? err.code : 'UNEXPECTED';
    this.unrecorded.inc({ code });
    // The acquirer's references only (never card data): enough to find the call at the acquirer.
    this.logger.warn(
      {
        orderId: command.orderId,
        transactionId: command.transactionId,
        acquirerTransactionId: result.acquirer.transactionId,
        receipt: result.receipt,
        gatewayCode: result.gatewayCode,
        code,
      },
      'verification answered by the acquirer was not recorded by the ledger',
    );
  }
}

/**
 * What the order keeps (and its retrieval returns at the top level), as the response shows
 * it: the agreement, billing and shipping addresses, customer, and the order's own fields as
 * sent (reference, description, custom fields, tax and wallet fields). The ledger redacts card data from it as from every stored body.
 */
function orderDetails(body: JsonObject): JsonObject {
  const details: JsonObject = {};
  for (const key of ['agreement', 'billing', 'customer', 'shipping']) {
    if (body[key] !== undefined) {
      details[key] = body[key];
    }
  }
  const order = body.order as JsonObject;
  for (const key of ECHOED_ORDER_FIELDS) {
    if (order[key] !== undefined) {
      details[key] = order[key];
    }
  }
  return details;
}
