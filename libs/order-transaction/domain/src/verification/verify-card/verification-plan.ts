import { CardDetails, lookupCardBin } from '@gateway/acquirer';
import {
  AcquirerCallSource,
  Agreement,
  ExplicitCardFields,
  JsonObject,
  LedgerOrderView,
  OperationSession,
  RequestEnvelope,
  unmaskRequested,
  VerifyPosTerminal,
  VerifyRequest,
} from '@gateway/contracts';
import type { AgreementTermsRow } from '@gateway/order-transaction/data-access';
import {
  buildVerifyCardRequest,
  cardPresentment,
  CardlessVerifyCardRequest,
  explicitCardDetails,
  explicitCardFields,
  hasCompleteExplicitCard,
} from '../acquirer/verify-card-request.mapper';
import { agreementForOperation } from '../../agreements/agreement-terms';
import { sessionMayCompleteCard } from '../../card-operation/session-card';
import { resolveCardType } from '../rules/card-type.rule';
import { fillFromEmv, ParsedEmvRequest, parseEmvRequest } from '../rules/emv-request.rule';
import { invalid } from '../../request-errors/request-errors';
import { checkAvsResponseCodeRules } from '../rules/transaction-filtering.rule';

/** `PUT .../order/{orderid}/transaction/{transactionid}` with `apiOperation: VERIFY`, validated. */
export interface VerifyCardCommand {
  readonly envelope: RequestEnvelope;
  readonly orderId: string;
  readonly transactionId: string;
  readonly request: VerifyRequest;
  /** The request body, filled from a session the request named (what the merchant sent wins). */
  readonly body: JsonObject;
  /** The body as the merchant sent it, when a session filled `body`: the request hash is computed over it (requestHashBasis). */
  readonly asSent?: JsonObject;
  /** The payment session the request named, with its card sealed by the vault (if it has one). */
  readonly session?: OperationSession;
  /** When the edge stops waiting (OrderOperationMessage.deadline); none from an older edge. */
  readonly deadline?: number;
}

/**
 * Where the card comes from. Explicit card fields that identify the card (number and expiry,
 * possibly from EMV tags) are used directly: they win over a session's and a token's anyway.
 * Otherwise the token vault completes the card from the token and/or the session's sealed
 * card, explicit values first (explicit > session > token).
 */
export type CardSource =
  | { readonly kind: 'EXPLICIT'; readonly details: CardDetails; readonly cardType?: string }
  | { readonly kind: 'STORED'; readonly from: AcquirerCallSource; readonly explicit?: ExplicitCardFields };

/** Everything decided about a VERIFY before the acquirer is called. */
export interface VerificationPlan {
  /**
   * The request as the verification runs on it: its agreement with the terms it leaves out
   * taken from the established agreement (what the acquirer is told and the response shows).
   */
  readonly request: VerifyRequest;
  readonly currency: string;
  /** The reply may show the full number the merchant sent (permission, certificate, UNMASK). */
  readonly unmask: boolean;
  readonly emv?: ParsedEmvRequest;
  /** `posTerminal` as sent, with fields filled from EMV tags. */
  readonly posTerminal?: VerifyPosTerminal;
  readonly source: CardSource;
  /** `sourceOfFunds.provided.card.cardType` as requested (checked against the card's BIN). */
  readonly requestedCardType?: string;
  readonly acquirerRequest: CardlessVerifyCardRequest;
}

/**
 * The business rules a VERIFY must pass before any side effect, run after the ledger's begin
 * (a replay is answered as stored even when a rule would now refuse it, such as a start date
 * that has passed since): the agreement, filled from the one `established` for its id (its type
 * unchanged, `startDate` given not in the past by `now`), the order's currency, one AVS rule per
 * code, UNMASK permission, the EMV data, the card's source and, for an explicit card, its card
 * type.
 */
export function planVerification(
  command: VerifyCardCommand,
  order: LedgerOrderView | null,
  now: Date,
  established: AgreementTermsRow | null,
): VerificationPlan {
  const { envelope } = command;
  const currency = command.request.order.currency;
  const agreement = agreementForOperation(command.request.agreement, established, currency, now, {
    storedCredential: command.request.sourceOfFunds?.token !== undefined,
  });
  const request = withAgreement(command.request, agreement);
  checkOrderCurrency(currency, order);
  checkAvsResponseCodeRules(request.order.transactionFiltering?.avsResponseCodeRules);
  const unmask = unmaskRequested(request, envelope.merchant, envelope.authMethod);

  const given = request.sourceOfFunds.provided?.card;
  const emv = given?.emvRequest !== undefined ? parseEmvRequest(given.emvRequest) : undefined;
  const { card, posTerminal } = emv
    ? fillFromEmv(given ?? {}, request.posTerminal, emv)
    : { card: given, posTerminal: request.posTerminal };
  const from = storedSource(request.sourceOfFunds.token, command.session);
  const source: CardSource =
    from === undefined || (hasCompleteExplicitCard(card) && !sessionMayCompleteCard(card, command.session))
      ? explicitSource(explicitCardDetails(card), card?.cardType)
      : { kind: 'STORED', from, ...optional('explicit', explicitCardFields(card)) };

  return {
    request,
    currency,
    unmask,
    ...optional('emv', emv),
    ...optional('posTerminal', posTerminal),
    source,
    ...optional('requestedCardType', card?.cardType),
    acquirerRequest: buildVerifyCardRequest({
      merchantId: envelope.merchant.id,
      orderId: command.orderId,
      transactionId: command.transactionId,
      request,
      presentment: cardPresentment(card, emv),
      posTerminal,
    }),
  };
}

function withAgreement(request: VerifyRequest, agreement: Agreement | undefined): VerifyRequest {
  return agreement === request.agreement ? request : { ...request, agreement };
}

/** The stored parts of the card: the request's token and the named session's sealed card. */
function storedSource(token: string | undefined, session: OperationSession | undefined): AcquirerCallSource | undefined {
  const sealed = session?.sealedCard === undefined ? undefined : { value: session.sealedCard, bindingId: session.id };
  return token === undefined && sealed === undefined ? undefined : { ...optional('token', token), ...optional('sealed', sealed) };
}

function explicitSource(details: CardDetails, requestedCardType: string | undefined): CardSource {
  const cardType = resolveCardType(requestedCardType, lookupCardBin(details.number).cardTypeSelection);
  return { kind: 'EXPLICIT', details, ...optional('cardType', cardType) };
}

/** An order keeps the currency of its first transaction (the ledger checks it again on record). */
function checkOrderCurrency(currency: string, order: LedgerOrderView | null): void {
  if (order && order.currency !== currency) {
    throw invalid('order.currency', currency, `The order's currency is ${order.currency}.`);
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
