import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Min, ValidateNested } from 'class-validator';
import { RequestEnvelope } from '../envelope';
import { Verbatim } from '../verbatim';
import { ResponseControls } from '../requests/shared-groups';
import { ORDER_API_OPERATIONS, OrderApiOperation } from '../subjects';

/** A JSON object as it came off (and goes back on) the wire. */
export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/**
 * The payment session a request named (`session.id`), as the edge resolved it (docs/sessions.md).
 * The edge has already filled the body with the session's values (request values win) and
 * checked `session.version`; card details never enter the body from a session: they stay sealed
 * by the vault, in `sealedCard`. A service whose operation needs the card passes it on in
 * `token-vault.acquirer.call.v1` as `source.sealed = { value: sealedCard, bindingId: id }`,
 * with the request's own card fields as `explicit` and its `sourceOfFunds.token` as
 * `source.token`: the vault completes the card, explicit > session > token.
 */
export class OperationSession {
  /** The spec's session.id (ASCII 31-35): the binding the sealed card opens with. */
  @Matches(/^[\x21-\x7e]{31,35}$/)
  id: string;

  /** The session's card, sealed by the vault (`token-vault.card.seal.v1`); absent when it has none. */
  @IsOptional()
  @IsString()
  @Length(1, 4096)
  sealedCard?: string;
}

/**
 * `deadline`: when the edge stops waiting for the answer (epoch milliseconds, by the edge's
 * clock). The owning service refuses the operation, unprocessed, once this has passed before the
 * operation's first step (docs/decisions/operation-deadline.md). Absent (an edge of the release
 * before): no deadline. It belongs to the one message the edge sends, not to the envelope, which
 * services pass on verbatim in the requests they make for the operation (the ledger's records,
 * the vault's acquirer calls): those complete what the operation began and must never inherit it.
 */
export function OperationDeadline(): PropertyDecorator {
  return (target, property) => {
    IsOptional()(target, property);
    IsInt()(target, property);
    Min(0)(target, property);
  };
}

/**
 * `PUT .../order/{orderid}/transaction/{transactionid}`: the edge has authenticated the
 * merchant, validated the path and the body and taken the order lock; the owning service
 * validates the body again with the same request class before its use case sees it.
 */
export class OrderOperationMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsIn(ORDER_API_OPERATIONS)
  apiOperation: OrderApiOperation;

  @IsString()
  @Length(1, 40)
  orderId: string;

  @IsString()
  @Length(1, 40)
  transactionId: string;

  @Verbatim()
  @IsObject()
  body: JsonObject;

  /** Present when the request named a payment session (`body` is already filled from it). */
  @IsOptional()
  @ValidateNested()
  @Type(() => OperationSession)
  session?: OperationSession;

  /**
   * The body as the merchant sent it, when a session filled `body` (absent otherwise, and from an
   * edge of the release before). The request hash is computed over it (`requestHashBasis`), so a
   * retry is recognised from what the merchant sent, even once the session has expired
   * (docs/decisions/payment-sessions.md, amendment 2026-11-27). Hashed only, never acted on.
   */
  @IsOptional()
  @Verbatim()
  @IsObject()
  asSent?: JsonObject;

  /** The edge's deadline (OperationDeadline). */
  @OperationDeadline()
  deadline?: number;
}

/**
 * What an order operation's request hash is computed over: the body as the merchant sent it
 * (`asSent`, when a session filled the body), else the body. A service of the release before
 * hashes the filled body: a retry that meets the other release during a roll may be refused as
 * "already processed with different values", with no side effect (keyed-request-hash.md).
 */
export function requestHashBasis(command: { body: JsonObject; asSent?: JsonObject }): JsonObject {
  return command.asSent ?? command.body;
}

/**
 * `order-transaction.replay.find.v1`: an order operation whose named session is unknown or
 * expired, so the edge could not fill it. The ledger answers the stored response of this
 * (order, transaction, apiOperation) if its request hash is that of `body` (the body as sent), and
 * nothing otherwise; it runs, reserves, locks and records nothing. The edge then answers the
 * replay, or the session's 400 (docs/decisions/payment-sessions.md, amendment 2026-11-27).
 */
export class FindReplayMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsIn(ORDER_API_OPERATIONS)
  apiOperation: OrderApiOperation;

  @IsString()
  @Length(1, 40)
  orderId: string;

  @IsString()
  @Length(1, 40)
  transactionId: string;

  /** The body as the merchant sent it, naming the session. */
  @Verbatim()
  @IsObject()
  body: JsonObject;

  /** The edge's deadline (OperationDeadline): the ledger reads nothing once it has passed. */
  @OperationDeadline()
  deadline?: number;
}

/** FindReplayMessage's answer: `body`, the stored response, only when the request is a replay. */
export interface FindReplayReply {
  body?: JsonObject;
}

/** `PUT .../token/{tokenid}` (and the vault's other token operations). */
export class TokenOperationMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  tokenId: string;

  @Verbatim()
  @IsObject()
  body: JsonObject;

  /** As for order operations: the vault opens `sealedCard` itself (explicit > session card). */
  @IsOptional()
  @ValidateNested()
  @Type(() => OperationSession)
  session?: OperationSession;

  /** The edge's deadline (OperationDeadline): the vault saves nothing once it has passed. */
  @OperationDeadline()
  deadline?: number;
}

/** `POST .../token`: create a token whose id the vault generates (or takes from the body). */
export class CreateTokenMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @Verbatim()
  @IsObject()
  body: JsonObject;

  @IsOptional()
  @ValidateNested()
  @Type(() => OperationSession)
  session?: OperationSession;

  /** The edge's deadline (OperationDeadline): the vault creates nothing once it has passed. */
  @OperationDeadline()
  deadline?: number;
}

/** `GET` and `DELETE .../token/{tokenid}`: no body. */
export class TokenReferenceMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  tokenId: string;

  /** GET's query parameter `responseControls.sensitiveData` (docs/decisions/unmasking.md). */
  @IsOptional()
  @ValidateNested()
  @Type(() => ResponseControls)
  responseControls?: ResponseControls;

  /** The edge's deadline (OperationDeadline): the vault neither reads nor deletes once it has passed. */
  @OperationDeadline()
  deadline?: number;
}

/**
 * A service's answer to an operation: the response body without the fields the edge adds
 * to every response (`merchant`, `version`, `correlationId`). Business outcomes (declines,
 * FAILURE, PENDING) are bodies; only requests that cannot be processed are errors.
 */
export interface OperationReply {
  body: JsonObject;
}

export interface PingReply {
  service: string;
  ok: true;
}
