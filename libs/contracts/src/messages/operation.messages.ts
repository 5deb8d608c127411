import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, Length, ValidateNested } from 'class-validator';
import { RequestEnvelope } from '../envelope';
import { ORDER_API_OPERATIONS, OrderApiOperation } from '../subjects';

/** A JSON object as it came off (and goes back on) the wire. */
export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

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

  @IsObject()
  body: JsonObject;
}

/** `PUT .../token/{tokenid}` (and the vault's other token operations). */
export class TokenOperationMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  tokenId: string;

  @IsObject()
  body: JsonObject;
}

/** `POST .../token`: create a token whose id the vault generates (or takes from the body). */
export class CreateTokenMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsObject()
  body: JsonObject;
}

/** `GET` and `DELETE .../token/{tokenid}`: no body. */
export class TokenReferenceMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  tokenId: string;
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
