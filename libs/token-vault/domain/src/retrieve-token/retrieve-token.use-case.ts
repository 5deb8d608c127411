import { Inject, Injectable } from '@nestjs/common';
import { AuthMethod, GatewayError, JsonObject, MerchantContext, ResponseControls, unmaskRequested } from '@gateway/contracts';
import { refuseIfPastDeadline } from '@gateway/platform';
import { TokenSealing } from '../instrument/token-sealing';
import { repositoryPolicy } from '../repository/repository-policy';
import { tokenBody } from '../responses/token-response';
import { TOKEN_STORE, TokenStore } from '../token-store';

export interface TokenReferenceCommand {
  merchant: MerchantContext;
  tokenId: string;
  /** When the edge stops waiting (TokenReferenceMessage.deadline); absent: never refused for time. */
  deadline?: number;
}

export interface RetrieveTokenCommand extends TokenReferenceCommand {
  authMethod: AuthMethod;
  responseControls?: ResponseControls;
}

/**
 * GET .../token/{tokenid}, beyond the spec: what the repository holds, card data masked; the
 * full number with `responseControls.sensitiveData=UNMASK`, the merchant's permission and
 * certificate authentication (the one rule, contracts' `unmaskRequested`).
 */
@Injectable()
export class RetrieveToken {
  constructor(
    @Inject(TOKEN_STORE) private readonly store: TokenStore,
    private readonly sealing: TokenSealing,
  ) {}

  async execute(command: RetrieveTokenCommand): Promise<JsonObject> {
    // Nobody waits for the answer any more: the read is not made (docs/decisions/operation-deadline.md).
    refuseIfPastDeadline(command.deadline);
    const unmask = unmaskRequested(command, command.merchant, command.authMethod);
    const repository = repositoryPolicy(command.merchant);
    const record = await this.store.findByToken(repository.id, command.tokenId);
    if (!record) {
      throw noSuchToken(command.tokenId, repository.id);
    }
    // Card tokens answer from their masked columns alone; only provider_a details and UNMASK need opening.
    const instrument = record.sourceType === 'PROVIDER_A' || unmask ? await this.sealing.openInstrument(record) : null;
    return tokenBody(record, { result: 'SUCCESS', instrument, unmask, now: new Date() });
  }
}

/** An unknown token on GET or DELETE: the resource does not exist (404, INVALID_REQUEST). */
export function noSuchToken(token: string, repositoryId: string): GatewayError {
  return new GatewayError('NOT_FOUND', { explanation: `Token '${token}' does not exist in repository ${repositoryId}.` });
}

