import { Inject, Injectable } from '@nestjs/common';
import {
  AcquirerCard,
  AcquirerConnector,
  AcquirerOperationContext,
  AcquirerRegistry,
  AcquirerWireCodec,
  AcquirerWireError,
  AUTHORIZE_WIRE,
  AuthorizeCardRequest,
  AuthorizeCardResult,
  CardDetails,
  expiryForResponse,
  PAY_WIRE,
  PayCardRequest,
  PayCardResult,
  REFUND_WIRE,
  RefundRequest,
  RefundResult,
  VERIFY_WIRE,
  VerifyCardRequest,
  VerifyCardResult,
  withCardDetails,
} from '@gateway/acquirer';
import {
  AcquirerCallOperation,
  AcquirerCallReply,
  ExplicitCardFields,
  GatewayError,
  JsonObject,
  MaskedCard,
  MerchantContext,
} from '@gateway/contracts';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { TokenRecord } from '@gateway/token-vault/data-access';
import { maskedCard } from '../cards/masked-card';
import type { CardInstrument } from '../instrument/instrument';
import { TokenSealing } from '../instrument/token-sealing';
import { repositoryPolicy } from '../repository/repository-policy';
import { SessionCard, SessionCardSealing } from '../session-cards/session-card-sealing';
import { TOKEN_STORE, TokenStore } from '../token-store';
import { completeCard } from './complete-card';

export interface CallAcquirerCommand {
  merchant: MerchantContext;
  operation: AcquirerCallOperation;
  source: { token?: string; sealed?: { value: string; bindingId: string } };
  explicit?: ExplicitCardFields;
  /** The acquirer request without its card details, in the acquirer lib's wire form. */
  request: JsonObject;
}

/** An acquirer request that may carry a card. */
type CardOperation = AcquirerOperationContext & { readonly card?: AcquirerCard };

/** How the vault makes one kind of acquirer call. */
interface CardCall<Request extends CardOperation, Result> {
  codec: AcquirerWireCodec<Request, Result>;
  send(connector: AcquirerConnector, request: Request): Promise<Result>;
}

const VERIFY_CALL: CardCall<VerifyCardRequest, VerifyCardResult> = {
  codec: VERIFY_WIRE,
  send: (connector, request) => connector.verify(request),
};

const AUTHORIZE_CALL: CardCall<AuthorizeCardRequest, AuthorizeCardResult> = {
  codec: AUTHORIZE_WIRE,
  send: (connector, request) => connector.authorize(request),
};

const PAY_CALL: CardCall<PayCardRequest, PayCardResult> = {
  codec: PAY_WIRE,
  send: (connector, request) => connector.pay(request),
};

const REFUND_CALL: CardCall<RefundRequest, RefundResult> = {
  codec: REFUND_WIRE,
  send: (connector, request) => connector.refund(request),
};

interface StoredCard {
  record: TokenRecord;
  card: CardInstrument;
}

/**
 * `token-vault.acquirer.call.v1`: an acquirer operation for a service that holds a token or a
 * payment session but must not hold the card (card custody, ARCHITECTURE 1 and 6). The vault
 * opens the token's card and/or the session's sealed card, completes it with the request's
 * explicit values (explicit > session > token), calls the merchant's acquirer through the
 * registry (so the call is counted like any other) and answers the result with the card masked.
 *
 * A token is looked up in the merchant's own repository only, and a sealed card opens only for
 * the merchant and session it was sealed for: another merchant's token or session card is never
 * decrypted. A merchant without an acquirer is refused before anything is opened.
 */
@Injectable()
export class CallAcquirer {
  constructor(
    @Inject(TOKEN_STORE) private readonly store: TokenStore,
    private readonly tokenSealing: TokenSealing,
    private readonly sessionCards: SessionCardSealing,
    private readonly acquirers: AcquirerRegistry,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  execute(command: CallAcquirerCommand): Promise<AcquirerCallReply> {
    switch (command.operation) {
      case 'VERIFY':
        return this.perform(VERIFY_CALL, command);
      case 'AUTHORIZE':
        return this.perform(AUTHORIZE_CALL, command);
      case 'PAY':
        return this.perform(PAY_CALL, command);
      case 'REFUND':
        return this.perform(REFUND_CALL, command);
    }
  }

  private async perform<Request extends CardOperation, Result>(
    call: CardCall<Request, Result>,
    command: CallAcquirerCommand,
  ): Promise<AcquirerCallReply> {
    const request = call.codec.decodeRequest(command.request);
    if (request.merchantId !== command.merchant.id) {
      throw new AcquirerWireError('request.merchantId is not the merchant of the envelope');
    }
    const { token, sealed } = command.source;
    if (token === undefined && sealed === undefined) {
      throw new AcquirerWireError('source names neither a token nor a sealed card');
    }
    const connector = this.acquirers.forMerchant(command.merchant);
    const [stored, session] = await Promise.all([
      token !== undefined ? this.storedCard(command.merchant, token) : undefined,
      sealed !== undefined ? this.sessionCard(command.merchant, sealed) : undefined,
    ]);
    const card = completeCard({ explicit: command.explicit, session, token: stored?.card });
    const result = await call.send(connector, withCardDetails<Request>(request, card));
    if (stored) {
      await this.markUsed(stored.record);
    }
    return { result: call.codec.encodeResult(result), card: masked(card) };
  }

  private async storedCard(merchant: MerchantContext, token: string): Promise<StoredCard> {
    const repositoryId = repositoryPolicy(merchant).id;
    const record = await this.store.findByToken(repositoryId, token);
    if (!record) {
      throw GatewayError.invalidField(
        'sourceOfFunds.token',
        'INVALID',
        `Value '${token}' is invalid. There is no such token in repository ${repositoryId}.`,
      );
    }
    if (record.sourceType !== 'CARD') {
      throw GatewayError.invalidField('sourceOfFunds.token', 'INVALID', `Value '${token}' is invalid. The token does not hold a card.`);
    }
    return { record, card: (await this.tokenSealing.openInstrument(record)) as CardInstrument };
  }

  /**
   * `usage.lastUsed` of the token. Never fails the call: the acquirer has acted (a refund may
   * have moved money), so its result must reach the caller whatever happens to this write.
   */
  private async markUsed(record: TokenRecord): Promise<void> {
    try {
      await this.store.markUsed(record.id);
    } catch (err) {
      this.logger.warn({ err, repositoryId: record.repositoryId }, 'could not record the use of a token');
    }
  }

  private sessionCard(merchant: MerchantContext, sealed: { value: string; bindingId: string }): Promise<SessionCard> {
    return this.sessionCards.open({ merchantId: merchant.id, bindingId: sealed.bindingId }, sealed.value);
  }
}

function masked(card: CardDetails): MaskedCard {
  return {
    ...maskedCard({ number: card.number, expiry: expiryForResponse(card.expiry), nameOnCard: card.nameOnCard }),
    number: card.number.masked,
  };
}
