import { Inject, Injectable } from '@nestjs/common';
import { JsonObject } from '@gateway/contracts';
import { repositoryPolicy } from '../repository/repository-policy';
import { noSuchToken, TokenReferenceCommand } from '../retrieve-token/retrieve-token.use-case';
import { TOKEN_STORE, TokenStore } from '../token-store';

/**
 * DELETE .../token/{tokenid}, beyond the spec. The row goes with its sealed card number: nothing
 * of the card remains in the vault (the data key that sealed it may still serve other rows).
 */
@Injectable()
export class DeleteToken {
  constructor(@Inject(TOKEN_STORE) private readonly store: TokenStore) {}

  async execute(command: TokenReferenceCommand): Promise<JsonObject> {
    const repository = repositoryPolicy(command.merchant);
    if (!(await this.store.deleteByToken(repository.id, command.tokenId))) {
      throw noSuchToken(command.tokenId, repository.id);
    }
    return { result: 'SUCCESS' };
  }
}
