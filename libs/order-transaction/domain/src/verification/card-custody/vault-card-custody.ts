import { Injectable } from '@nestjs/common';
import { VERIFY_WIRE } from '@gateway/acquirer';
import {
  AcquirerCallMessage,
  AcquirerCallReply,
  GatewayError,
  JsonObject,
  OperationReply,
  RequestEnvelope,
  SUBJECTS,
  TokenReferenceMessage,
} from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import { StoredCardAcquirer, StoredCardVerification, StoredCardVerified } from './stored-card-acquirer';

/** The token vault's card custody subjects (card-custody.messages.ts), as verification uses them. */
@Injectable()
export class VaultCardCustody implements StoredCardAcquirer {
  constructor(private readonly bus: MessageBus) {}

  /** `token-vault.acquirer.call.v1`: the request travels without card details, the result with the card masked. */
  async verify(verification: StoredCardVerification): Promise<StoredCardVerified> {
    const message: AcquirerCallMessage = {
      envelope: verification.envelope,
      operation: 'VERIFY',
      source: verification.source,
      ...(verification.explicit ? { explicit: verification.explicit } : {}),
      request: VERIFY_WIRE.encodeRequest(verification.request),
    };
    const reply = await this.bus.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, message);
    return { result: VERIFY_WIRE.decodeResult(reply.result), card: reply.card };
  }

  /**
   * From the token's retrieval, which shows the card masked 6.4: its first six digits are the
   * BIN, which is not card data. A token holding no card cannot be verified.
   */
  async binOf(envelope: RequestEnvelope, token: string): Promise<string> {
    const message: TokenReferenceMessage = { envelope, tokenId: token };
    const { body } = await this.bus
      .request<OperationReply>(SUBJECTS.tokenVault.retrieveToken, message)
      .catch((err: unknown) => {
        // Here the token is a request field, not the path's resource: an unknown one is a 400 on it.
        throw err instanceof GatewayError && err.code === 'NOT_FOUND'
          ? invalidToken(token, 'No such token exists.')
          : err;
      });
    const number = cardOf(body)?.number;
    if (typeof number !== 'string' || !/^[0-9]{6}/.test(number)) {
      throw invalidToken(token, 'The token does not hold a card.');
    }
    return number.slice(0, 6);
  }
}

function invalidToken(token: string, reason: string): GatewayError {
  return GatewayError.invalidField(
    'sourceOfFunds.token',
    'INVALID',
    `Value '${token}' is invalid. ${reason}`,
  );
}

function cardOf(body: JsonObject): JsonObject | undefined {
  const provided = (body.sourceOfFunds as JsonObject | undefined)?.provided as JsonObject | undefined;
  return provided?.card as JsonObject | undefined;
}
