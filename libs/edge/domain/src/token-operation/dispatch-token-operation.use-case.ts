import { Injectable } from '@nestjs/common';
import {
  AuthMethod,
  JsonObject,
  MerchantContext,
  OperationReply,
  SUBJECTS,
  TokenOperationMessage,
  validateTokenRequest,
} from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';

export interface TokenOperationCommand {
  merchant: MerchantContext;
  authMethod: AuthMethod;
  apiVersion: number;
  requestId: string;
  tokenId: string;
  body: JsonObject;
}

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
    const message: TokenOperationMessage = {
      envelope: {
        merchant: command.merchant,
        apiVersion: command.apiVersion,
        requestId: command.requestId,
        authMethod: command.authMethod,
      },
      tokenId: command.tokenId,
      body: command.body,
    };
    const reply = await this.bus.request<OperationReply>(SUBJECTS.tokenVault.saveToken, message);
    return reply.body;
  }
}
