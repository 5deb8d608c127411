import { Injectable } from '@nestjs/common';
import {
  AuthMethod,
  CreateTokenMessage,
  JsonObject,
  MerchantContext,
  OperationReply,
  RequestEnvelope,
  SUBJECTS,
  TokenOperationMessage,
  TokenReferenceMessage,
  validateTokenRequest,
} from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';

export interface TokenRequestContext {
  merchant: MerchantContext;
  authMethod: AuthMethod;
  apiVersion: number;
  requestId: string;
}

export interface TokenOperationCommand extends TokenRequestContext {
  tokenId: string;
  body: JsonObject;
}

export type CreateTokenCommand = TokenRequestContext & { body: JsonObject };
export type TokenReferenceCommand = TokenRequestContext & { tokenId: string };

/**
 * Create or update token: the vault owns the rules and serialises concurrent writes to one
 * token in its database, so no edge lock is taken.
 */
@Injectable()
export class DispatchTokenOperation {
  constructor(private readonly bus: MessageBus) {}

  async execute(command: TokenOperationCommand): Promise<JsonObject> {
    // Every field is checked (apiOperation is UNSUPPORTED here) before the vault is asked.
    validateTokenRequest(command.body);
    const message: TokenOperationMessage = { envelope: envelopeOf(command), tokenId: command.tokenId, body: command.body };
    const reply = await this.bus.request<OperationReply>(SUBJECTS.tokenVault.saveToken, message);
    return reply.body;
  }

  /** POST .../token (beyond the spec): create with a token the vault generates. */
  async create(command: CreateTokenCommand): Promise<JsonObject> {
    // The same fields as create or update token.
    validateTokenRequest(command.body);
    const message: CreateTokenMessage = { envelope: envelopeOf(command), body: command.body };
    return (await this.bus.request<OperationReply>(SUBJECTS.tokenVault.createToken, message)).body;
  }

  /** GET .../token/{tokenid} (beyond the spec). */
  async retrieve(command: TokenReferenceCommand): Promise<JsonObject> {
    const message: TokenReferenceMessage = { envelope: envelopeOf(command), tokenId: command.tokenId };
    return (await this.bus.request<OperationReply>(SUBJECTS.tokenVault.retrieveToken, message)).body;
  }

  /** DELETE .../token/{tokenid} (beyond the spec). */
  async remove(command: TokenReferenceCommand): Promise<JsonObject> {
    const message: TokenReferenceMessage = { envelope: envelopeOf(command), tokenId: command.tokenId };
    return (await this.bus.request<OperationReply>(SUBJECTS.tokenVault.deleteToken, message)).body;
  }
}

function envelopeOf(context: TokenRequestContext): RequestEnvelope {
  return {
    merchant: context.merchant,
    apiVersion: context.apiVersion,
    requestId: context.requestId,
    authMethod: context.authMethod,
  };
}
