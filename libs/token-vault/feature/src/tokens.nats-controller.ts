import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateTokenMessage,
  OperationReply,
  SUBJECTS,
  TokenOperationMessage,
  TokenReferenceMessage,
  validateTokenRequest,
} from '@gateway/contracts';
import { parseMessage } from '@gateway/platform';
import { DeleteToken, RetrieveToken, SaveToken } from '@gateway/token-vault/domain';

/** The vault's token operations: transport only, the use cases hold the rules. */
@Controller()
export class TokensNatsController {
  constructor(
    private readonly saveToken: SaveToken,
    private readonly retrieveToken: RetrieveToken,
    private readonly deleteToken: DeleteToken,
  ) {}

  /** PUT .../token/{tokenid}: create or update. */
  @MessagePattern(SUBJECTS.tokenVault.saveToken)
  async save(@Payload() data: unknown): Promise<OperationReply> {
    const message = parseMessage(TokenOperationMessage, data);
    const body = await this.saveToken.execute({
      envelope: message.envelope,
      tokenId: message.tokenId,
      // The same request class the edge validated with: the vault trusts no caller's body.
      fields: validateTokenRequest(message.body),
      session: message.session,
      deadline: message.deadline,
    });
    return { body };
  }

  /** POST .../token: create with a generated token. */
  @MessagePattern(SUBJECTS.tokenVault.createToken)
  async create(@Payload() data: unknown): Promise<OperationReply> {
    const message = parseMessage(CreateTokenMessage, data);
    const body = await this.saveToken.execute({
      envelope: message.envelope,
      fields: validateTokenRequest(message.body),
      session: message.session,
      deadline: message.deadline,
    });
    return { body };
  }

  @MessagePattern(SUBJECTS.tokenVault.retrieveToken)
  async retrieve(@Payload() data: unknown): Promise<OperationReply> {
    const message = parseMessage(TokenReferenceMessage, data);
    const { merchant, authMethod } = message.envelope;
    return {
      body: await this.retrieveToken.execute({ merchant, authMethod, tokenId: message.tokenId, responseControls: message.responseControls, deadline: message.deadline }),
    };
  }

  @MessagePattern(SUBJECTS.tokenVault.deleteToken)
  async remove(@Payload() data: unknown): Promise<OperationReply> {
    const message = parseMessage(TokenReferenceMessage, data);
    return { body: await this.deleteToken.execute({ merchant: message.envelope.merchant, tokenId: message.tokenId, deadline: message.deadline }) };
  }
}
