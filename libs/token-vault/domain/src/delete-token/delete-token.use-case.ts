import { Inject, Injectable } from '@nestjs/common';
import { JsonObject } from '@gateway/contracts';
import { refuseIfPastDeadline } from '@gateway/platform';
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

  /**
   * Refused unprocessed (PastDeadlineError) once the edge's deadline has passed, checked when the
   * delete's connection is held, before its statement (docs/decisions/operation-deadline.md).
   */
  async execute(command: TokenReferenceCommand): Promise<JsonObject> {
    const repository = repositoryPolicy(command.merchant);
    const { deadline } = command;
    if (!(await this.store.deleteByToken(repository.id, command.tokenId, deadline === undefined ? undefined : () => refuseIfPastDeadline(deadline)))) {
      throw noSuchToken(command.tokenId, repository.id);
    }
    return { result: 'SUCCESS' };
  }
}
