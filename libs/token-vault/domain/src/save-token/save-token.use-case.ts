import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, OperationSession, RequestEnvelope, unmaskRequested } from '@gateway/contracts';
import { maskPan, Secret } from '@gateway/crypto';
import { PastDeadlineAfterCallsError, PastDeadlineError, refuseIfPastDeadline } from '@gateway/platform';
import { TokenConflictError, TokenRecord, TokenWrite } from '@gateway/token-vault/data-access';
import { CardExpiry } from '../cards/card-expiry';
import { cardProfile } from '../cards/card-ranges';
import type { Instrument } from '../instrument/instrument';
import { TokenSealing } from '../instrument/token-sealing';
import { TEST_P2PE_SCHEME, TestP2peScheme } from '../p2pe/test-p2pe-scheme';
import { isUniqueAccount, RepositoryPolicy, repositoryPolicy } from '../repository/repository-policy';
import { EchoedFields, failedSaveBody, tokenBody } from '../responses/token-response';
import {
  isSuccessful,
  SchemeToken,
  SchemeTokenizationCode,
  TOKEN_SERVICE_PROVIDERS,
  TokenizationContext,
  TokenizationResult,
  TokenServiceProvider,
  TokenServiceProviders,
} from '../token-service-provider/token-service-provider';
import { TOKEN_STORE, TokenStore } from '../token-store';
import { CardVerification, NO_VERIFICATION, VerificationOutcome } from '../verification/card-verification';
import { SessionCard, SessionCardSealing } from '../session-cards/session-card-sealing';
import { isPushProvisioning, PushProvisioning, requestedInstrument } from './requested-instrument';
import type { SaveTokenFields } from './save-token-fields';
import {
  accountHeldByAnotherToken,
  addressedToken,
  checkTokenIsNotTheCard,
  checkUpdate,
  generateToken,
  mergeInstrument,
  RequestedInstrument,
  tokenIdsExhausted,
  unknownTokenError,
  verificationStrategyFor,
} from './save-token.rules';

export interface SaveTokenCommand {
  /** Who asks (merchant, authentication method) and the request id ACQUIRER verification carries on. */
  envelope: RequestEnvelope;
  /** PUT .../token/{tokenid}: the path's token. Absent for POST .../token (create). */
  tokenId?: string;
  fields: SaveTokenFields;
  /** The payment session the request named, with its card sealed by the vault (if it has one). */
  session?: OperationSession;
  /** When the edge stops waiting (TokenOperationMessage.deadline); absent: never refused for time. */
  deadline?: number;
}

/** `verification.card.verify.v1` references the call with at most 40 characters (a token id's length). */
const REFERENCE_LENGTH = 40;

/** Random hex characters that make each verification's reference its own. */
const REFERENCE_SUFFIX_LENGTH = 8;

/** Attempts before telling the caller to retry: each retry follows a concurrent write to the same token or account. */
const MAX_ATTEMPTS = 4;

/**
 * Tokens a save generates for one new row before it gives up: each draw after the first follows a
 * generated token another row of the repository already has. Preserve 6.4 tokens of a short card
 * have few ids to draw from (90 for 12 digits), and Unique Token management stores the same card
 * again and again, so they can run out; a Random token or a 16-digit card's draw is practically
 * never taken. Running out is refused with a 400 (tokenIdsExhausted), not retried as contention.
 */
export const GENERATED_TOKEN_ATTEMPTS = 10;

/** Another request changed the token between this save's read and its write. */
class StaleRead extends Error {}

interface SchemeTokenDecision {
  /** The outcome to report as response.gatewayCode, when scheme tokenization happened now. */
  reported?: SchemeTokenizationCode;
  token: SchemeToken | null;
  outcome: string | null;
}

interface SaveContext {
  command: SaveTokenCommand;
  repository: RepositoryPolicy;
  target: string | null;
  requested: RequestedInstrument;
  /** The card of the payment session the request names: its security code and name on card complete the request's. */
  sessionCard?: SessionCard;
  provisioned: { code: SchemeTokenizationCode; token: SchemeToken | null } | null;
  tsp: TokenServiceProvider;
  unmask: boolean;
  verifications: Map<string, Promise<VerificationOutcome>>;
  tokenizations: Map<string, Promise<TokenizationResult>>;
  /** Planning under a row lock: no new external calls. */
  offline?: boolean;
}

interface WritePlan {
  outcome: 'WRITE';
  /** The token updated (null: a new token is inserted). */
  subject: TokenRecord | null;
  row: TokenWrite;
  instrument: Instrument;
  gatewayCode: string;
}

type SavePlan = WritePlan | { outcome: 'FAILED'; body: JsonObject };

type TokenReader = Pick<TokenStore, 'findByFingerprint'>;

/**
 * Create or update token (PUT .../token/{tokenid}) and create with a generated token
 * (POST .../token), under every repository strategy.
 *
 * Verification and the token service provider are called before the write, so no row lock is
 * held across a network call. A new token is then one INSERT, in no transaction of its own. An
 * update locks the row in a transaction; if another save changed it meanwhile, the save is
 * planned again on the locked row (reusing its external results) or, if that would need a new
 * external call, starts over. A uniqueness constraint
 * firing (another request created the token or account at the same moment) also starts it
 * over. Concurrent saves of one token are therefore applied one after the other, and a row is
 * always entirely one request's result.
 *
 * A save whose deadline (the edge's) has passed is refused unprocessed (PastDeadlineError): before
 * anything is asked of anyone, and again at its write, once the write's connection is held, so a
 * save that waited past the deadline in the pool's queue writes nothing
 * (docs/decisions/operation-deadline.md, amendment on token operations); refused there after an
 * acquirer or a token service provider was asked, it is not answered as unprocessed.
 */
@Injectable()
export class SaveToken {
  constructor(
    @Inject(TOKEN_STORE) private readonly store: TokenStore,
    private readonly sealing: TokenSealing,
    private readonly verification: CardVerification,
    @Inject(TOKEN_SERVICE_PROVIDERS) private readonly tokenServiceProviders: TokenServiceProviders,
    @Inject(TEST_P2PE_SCHEME) private readonly p2pe: TestP2peScheme,
    private readonly sessionCards: SessionCardSealing,
  ) {}

  async execute(command: SaveTokenCommand): Promise<JsonObject> {
    refuseIfPastDeadline(command.deadline);
    const { merchant, authMethod } = command.envelope;
    const repository = repositoryPolicy(merchant);
    const unmask = unmaskRequested(command.fields, merchant, authMethod);
    const target = addressedToken(command.tokenId, command.fields, repository);
    const fromRequest = requestedInstrument(command.fields, merchant, this.p2pe);
    const sessionCard = await this.sessionCardFor(fromRequest, command);
    const resolved = withSessionCard(fromRequest, sessionCard);
    const tsp = this.tokenServiceProviders.forMerchant(merchant);
    let requested: RequestedInstrument;
    let provisioned: SaveContext['provisioned'] = null;
    if (isPushProvisioning(resolved)) {
      // A PUT creates no token outside Merchant-Supplied generation: an unknown token is refused
      // before the token service provider is asked (its scheme token would be for nothing, and a
      // declined provisioning would answer FAILURE for a token that does not exist).
      await this.refuseUnknownToken(command, repository);
      const result = await tsp.provision(resolved.provisioningIdentifier, tokenizationContext(command.fields));
      if (!isSuccessful(result.code) || !result.card) {
        return failedSaveBody({
          repositoryId: repository.id,
          token: command.tokenId,
          verificationStrategy: command.fields.verificationStrategy ?? repository.defaultVerificationStrategy,
          gatewayCode: result.code,
          echo: echoOf(command.fields),
        });
      }
      requested = { type: 'CARD', pan: result.card.pan, expiry: result.card.expiry ?? undefined };
      provisioned = { code: result.code, token: result.schemeToken ?? null };
    } else {
      requested = resolved;
    }
    const context: SaveContext = {
      command,
      repository,
      target,
      requested,
      sessionCard,
      provisioned,
      tsp,
      unmask,
      verifications: new Map(),
      tokenizations: new Map(),
    };
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      try {
        return await this.attempt(context);
      } catch (err) {
        if (!(err instanceof TokenConflictError || err instanceof StaleRead)) {
          throw err;
        }
      }
    }
    throw new GatewayError('SERVER_BUSY', {
      explanation: 'Other requests are changing this token at the same moment. Please retry.',
      retryAfterSeconds: 1,
    });
  }

  /** The card of the payment session the request names, when the save takes a card: push provisioning and provider_a take none. */
  private async sessionCardFor(
    resolved: RequestedInstrument | PushProvisioning,
    command: SaveTokenCommand,
  ): Promise<SessionCard | undefined> {
    const sealed = command.session?.sealedCard;
    if (sealed === undefined || isPushProvisioning(resolved) || resolved?.type === 'PROVIDER_A') {
      return undefined;
    }
    return this.sessionCards.open({ merchantId: command.envelope.merchant.id, bindingId: command.session!.id }, sealed);
  }

  private async refuseUnknownToken(command: SaveTokenCommand, repository: RepositoryPolicy): Promise<void> {
    if (command.tokenId !== undefined && repository.generation !== 'MERCHANT_SUPPLIED') {
      refuseIfUnknown(command, repository, await this.store.findByToken(repository.id, command.tokenId));
    }
  }

  private async attempt(context: SaveContext): Promise<JsonObject> {
    const { command, repository, target } = context;
    const stored = target ? await this.store.findByToken(repository.id, target) : null;
    refuseIfUnknown(command, repository, stored);
    const plan = await this.plan(context, stored, this.store);
    if (plan.outcome === 'FAILED') {
      return plan.body;
    }
    if (!plan.subject) {
      // A new token is the save's only write: one INSERT, atomic and committed on its own. A
      // token or account created meanwhile makes it fail as a conflict, and the save starts over
      // (a generated token already taken is drawn again first: insertNew).
      return this.respond(context, plan, await this.insertNew(context, plan));
    }
    const subject = plan.subject;
    return this.store.inTransaction(async (tx) => {
      // First in the transaction: a refusal rolls back an empty one.
      beforeWriteOf(context)?.();
      const locked = await tx.lockByToken(subject.repositoryId, subject.token);
      if (!locked) {
        throw new StaleRead();
      }
      let current: SavePlan = plan;
      if (locked.version !== subject.version) {
        // A creation redirected to the token holding its card (Unique Card / Unique Account
        // Identifier; no token addressed) may update that token only while it still holds the
        // card. If another save moved it to another card meanwhile, planning again on it would
        // take the token back from that save: start over (a new token, or the card's new holder).
        if (target === null && !locked.fingerprint.equals(subject.fingerprint)) {
          throw new StaleRead();
        }
        // Another save landed since the read: plan again on the row we now hold, reusing this
        // request's verification and tokenization results. A plan needing a new external call
        // starts over outside the transaction instead, so no lock waits on the network.
        current = await this.plan({ ...context, offline: true }, locked, tx);
        if (current.outcome === 'FAILED') {
          return current.body;
        }
      }
      const updated = await tx.update(current.row, locked.version);
      if (!updated) {
        throw new StaleRead();
      }
      return this.respond(context, current, updated);
    });
  }

  /**
   * Inserts a new token. A token the vault generated (no token named by the request or kept from a
   * holder) that another row already has is drawn again, at most GENERATED_TOKEN_ATTEMPTS times in
   * all; then the repository has no free id for this card that the save could find: a 400, since
   * retrying would meet the same full id space. Any other conflict starts the save over.
   */
  private async insertNew(context: SaveContext, plan: WritePlan): Promise<TokenRecord> {
    const generated = context.target === null;
    let row = plan.row;
    for (let draw = 1; ; draw++) {
      try {
        return await this.store.insert(row, beforeWriteOf(context));
      } catch (err) {
        if (!generated || !(err instanceof TokenConflictError) || err.conflict !== 'TOKEN') {
          throw err;
        }
        if (draw >= GENERATED_TOKEN_ATTEMPTS) {
          throw tokenIdsExhausted(context.repository, plan.instrument, GENERATED_TOKEN_ATTEMPTS);
        }
        row = { ...row, token: generateToken(context.repository, plan.instrument) };
      }
    }
  }

  /**
   * Everything a save decides from the request and the token it addresses: the instrument after
   * the save, the token rules, verification and scheme tokenization, and the row to write.
   */
  private async plan(context: SaveContext, addressed: TokenRecord | null, reader: TokenReader): Promise<SavePlan> {
    const { command, repository } = context;
    let subject = addressed;
    let storedInstrument = subject ? await this.sealing.openInstrument(subject) : null;
    let instrument = mergeInstrument(storedInstrument, context.requested);
    const fingerprint = this.sealing.fingerprint(repository.id, instrument);
    const uniqueAccount = isUniqueAccount(repository.management, instrument.type);
    const holder = uniqueAccount ? await reader.findByFingerprint(repository.id, fingerprint) : null;
    if (subject) {
      if (holder && holder.id !== subject.id) {
        throw accountHeldByAnotherToken(instrument);
      }
      checkUpdate(repository, storedInstrument!, instrument, !subject.fingerprint.equals(fingerprint));
    } else if (holder && context.target !== null) {
      // Creating the token the request names (Merchant-Supplied) for an account another token
      // holds: storing it against a second token would break the repository's uniqueness.
      throw accountHeldByAnotherToken(instrument);
    } else if (holder) {
      // Unique Card / Unique Account Identifier: creating a gateway-generated token for an
      // account already stored updates and returns the token that holds it
      // (docs/decisions/token-vault-rules.md).
      subject = holder;
      storedInstrument = await this.sealing.openInstrument(holder);
      instrument = mergeInstrument(storedInstrument, context.requested);
    }

    // The token this save keeps (the addressed one, or the holder of the card after a Unique Card /
    // Unique Account Identifier redirect) must not be the card it will hold: checked on every
    // save, creation or update, and before verification, so a refused request sends the card to
    // no acquirer or token service provider and no FAILURE body echoes such a token.
    const kept = subject?.token ?? context.target;
    if (kept !== null) {
      const chosenByMerchant = kept === context.target && repository.generation === 'MERCHANT_SUPPLIED';
      checkTokenIsNotTheCard(kept, instrument, tokenField(command, context.target, kept), chosenByMerchant);
    }

    const strategy = verificationStrategyFor(command.fields, repository, instrument);
    const referenceBase = subject?.token ?? context.target ?? command.envelope.requestId;
    const verification = await this.verify(context, strategy, instrument, fingerprint, referenceBase);
    if (!verification.passed) {
      return {
        outcome: 'FAILED',
        body: failedSaveBody({
          repositoryId: repository.id,
          token: subject?.token ?? command.tokenId,
          verificationStrategy: strategy,
          gatewayCode: verification.gatewayCode,
          card: instrument.type === 'CARD' ? instrument : null,
          echo: echoOf(command.fields),
        }),
      };
    }
    const scheme = await this.schemeToken(context, subject, storedInstrument, instrument, fingerprint);

    const token = kept ?? generateToken(repository, instrument);
    const rowId = subject?.id ?? this.sealing.newRowId();
    const row: TokenWrite = {
      id: rowId,
      repositoryId: repository.id,
      token,
      status: 'VALID',
      sourceType: instrument.type,
      verificationStrategy: strategy,
      ...this.sealing.seal(rowId, instrument, scheme.token),
      fingerprint,
      uniqueAccount,
      ...clearColumns(instrument),
      schemeTokenOutcome: scheme.outcome,
      schemeTokenReference: scheme.token?.reference ?? null,
      createdBy: subject?.createdBy ?? command.envelope.merchant.id,
      updatedBy: command.envelope.merchant.id,
    };
    return { outcome: 'WRITE', subject, row, instrument, gatewayCode: scheme.reported ?? verification.gatewayCode };
  }

  private respond(context: SaveContext, plan: WritePlan, saved: TokenRecord): JsonObject {
    return tokenBody(saved, {
      result: 'SUCCESS',
      gatewayCode: plan.gatewayCode,
      instrument: plan.instrument,
      unmask: context.unmask,
      echo: echoOf(context.command.fields),
      now: new Date(),
    });
  }

  /**
   * The card is verified with every detail the request and the payment session give, explicit
   * over session (spec session rules, as `completeCard` does for an acquirer call): the session's
   * security code and name on card too, or ACQUIRER would verify the card without the code the
   * payer entered. Only a number the merchant sent in clear, with no session card in play, may
   * leave the vault for verification (card custody: a session's card never crosses NATS in clear).
   */
  private verify(
    context: SaveContext,
    strategy: VerificationOutcome['strategy'],
    instrument: Instrument,
    fingerprint: Buffer,
    referenceBase: string,
  ): Promise<VerificationOutcome> {
    if (instrument.type !== 'CARD' || strategy === 'NONE') {
      return Promise.resolve(NO_VERIFICATION);
    }
    const { fields } = context.command;
    const card = fields.sourceOfFunds.provided?.card;
    const session = context.sessionCard;
    return once(context, context.verifications, `${strategy}:${fingerprint.toString('hex')}:${instrument.expiry?.mmyy ?? ''}`, () =>
      this.verification.verify(strategy, {
        envelope: context.command.envelope,
        card: instrument,
        numberFromRequest: card?.number !== undefined && session === undefined,
        securityCode: card?.securityCode !== undefined ? new Secret(card.securityCode) : session?.securityCode,
        nameOnCard: card?.nameOnCard ?? session?.nameOnCard,
        billingAddress: fields.billing?.address,
        currency: fields.transaction?.currency,
        // Drawn only for a verification that is made (a save without one pays nothing for it).
        reference: verificationReference(referenceBase),
      }),
    );
  }

  /**
   * Push provisioning brings its scheme token. Otherwise a repository configured for scheme
   * tokenization tokenizes a card it holds no scheme token for (a new card, a changed number,
   * or an earlier attempt that failed); the token of an unchanged card is kept.
   */
  private async schemeToken(
    context: SaveContext,
    stored: TokenRecord | null,
    storedInstrument: Instrument | null,
    instrument: Instrument,
    fingerprint: Buffer,
  ): Promise<SchemeTokenDecision> {
    if (context.provisioned) {
      return { reported: context.provisioned.code, token: context.provisioned.token, outcome: context.provisioned.code };
    }
    if (instrument.type !== 'CARD') {
      return { token: null, outcome: null };
    }
    const sameCard = stored !== null && storedInstrument?.type === 'CARD' && storedInstrument.pan.equals(instrument.pan);
    const kept = sameCard ? await this.sealing.openSchemeToken(stored) : null;
    if (kept || !context.repository.schemeTokenization) {
      return { token: kept, outcome: sameCard ? stored.schemeTokenOutcome : null };
    }
    // Keyed as the verification is: a scheme token is issued for the card with its expiry, so a
    // plan whose expiry another save changed meanwhile needs a tokenization of its own.
    const result = await once(context, context.tokenizations, `${fingerprint.toString('hex')}:${instrument.expiry?.mmyy ?? ''}`, () =>
      context.tsp.tokenize(instrument, tokenizationContext(context.command.fields, context.sessionCard)),
    );
    return { reported: result.code, token: result.schemeToken ?? null, outcome: result.code };
  }
}

/**
 * How an ACQUIRER verification references its call at the acquirer (which stands it for the order
 * and transaction ids, and may de-duplicate on it): the token (or, for a token not generated yet,
 * the request id), cut to fit, then '-' and random hex characters, at most REFERENCE_LENGTH in
 * all. Each verification gets its own reference, so an acquirer that de-duplicates by reference
 * never answers a later verification of the token (an updated card) with an earlier one's result,
 * and the reference still starts with the token it verified for
 * (docs/decisions/token-vault-acquirer-verification.md, amendment of 2026-11-27).
 */
function verificationReference(base: string): string {
  const suffix = randomBytes(REFERENCE_SUFFIX_LENGTH / 2).toString('hex');
  return `${base.slice(0, REFERENCE_LENGTH - REFERENCE_SUFFIX_LENGTH - 1)}-${suffix}`;
}

/** PUT updates under every strategy and creates only under Merchant-Supplied: elsewhere an unknown token is a 400. */
function refuseIfUnknown(command: SaveTokenCommand, repository: RepositoryPolicy, stored: TokenRecord | null): void {
  if (command.tokenId !== undefined && !stored && repository.generation !== 'MERCHANT_SUPPLIED') {
    throw unknownTokenError(command.tokenId, repository);
  }
}

/**
 * The check a save's write makes once it holds its connection: none without a deadline. A save
 * that has asked an acquirer or a token service provider by then is refused, but not as
 * unprocessed (PastDeadlineAfterCallsError): the edge would give the session's security code back
 * for reuse although the acquirer has had it.
 */
function beforeWriteOf({ command: { deadline }, verifications, tokenizations, provisioned }: SaveContext): (() => void) | undefined {
  if (deadline === undefined) {
    return undefined;
  }
  return () => {
    if (Date.now() < deadline) {
      return;
    }
    const asked = provisioned !== null || verifications.size > 0 || tokenizations.size > 0;
    throw asked ? new PastDeadlineAfterCallsError(deadline) : new PastDeadlineError(deadline);
  };
}

/**
 * One external call per input per request, however often the save is planned again; while a row
 * lock is held (`offline`) a call not made yet is not made: the save starts over instead.
 */
function once<T>(context: SaveContext, calls: Map<string, Promise<T>>, key: string, call: () => Promise<T>): Promise<T> {
  let pending = calls.get(key);
  if (!pending) {
    if (context.offline) {
      throw new StaleRead();
    }
    pending = call();
    calls.set(key, pending);
  }
  return pending;
}

/** The clear columns: masked card data only, and the billing agreement's terms. */
function clearColumns(
  instrument: Instrument,
): Pick<TokenWrite, 'cardNumberMasked' | 'cardExpiry' | 'cardBrand' | 'cardScheme' | 'cardFundingMethod' | 'providerAAgreement'> {
  if (instrument.type === 'CARD') {
    const profile = cardProfile(instrument.pan);
    return {
      cardNumberMasked: maskPan(instrument.pan.reveal()),
      cardExpiry: instrument.expiry?.mmyy ?? null,
      cardBrand: profile.brand,
      cardScheme: profile.scheme,
      cardFundingMethod: profile.fundingMethod,
      providerAAgreement: null,
    };
  }
  const { id: _id, ...terms } = instrument.agreement;
  return {
    cardNumberMasked: null,
    cardExpiry: null,
    cardBrand: null,
    cardScheme: null,
    cardFundingMethod: null,
    providerAAgreement: terms,
  };
}

/**
 * The field a token equal to its card is refused on: the request's own token (the path's on PUT,
 * `sourceOfFunds.token` on POST), as on creation; or, when the token kept is the one already
 * holding the card (a Unique Card / Unique Account Identifier redirect), the card number the
 * request sent. Only a row written before every save was checked can be in that second case.
 */
function tokenField(command: SaveTokenCommand, target: string | null, kept: string): string {
  if (kept !== target) {
    return 'sourceOfFunds.provided.card.number';
  }
  return command.tokenId !== undefined ? 'tokenid' : 'sourceOfFunds.token';
}

/** Token rule 7: these reach the token service provider and nothing else; a session's name on card too, the request's winning. */
function tokenizationContext(fields: SaveTokenFields, sessionCard?: SessionCard): TokenizationContext {
  const nameOnCard = fields.sourceOfFunds.provided?.card?.nameOnCard ?? sessionCard?.nameOnCard;
  return { nameOnCard, billing: fields.billing, customer: fields.customer };
}

/**
 * A session's card completes the request's own card details field by field (spec session
 * rules: the request's values win). Its security code and name on card are not stored: they
 * reach verification and the token service provider from the save's context.
 */
function withSessionCard(
  resolved: RequestedInstrument | PushProvisioning,
  sessionCard: SessionCard | undefined,
): RequestedInstrument | PushProvisioning {
  if (!sessionCard || isPushProvisioning(resolved) || resolved?.type === 'PROVIDER_A') {
    return resolved;
  }
  const sessionExpiry = sessionCard.expiry ? (CardExpiry.of(sessionCard.expiry.month, sessionCard.expiry.year) ?? undefined) : undefined;
  return { type: 'CARD', pan: resolved?.pan ?? sessionCard.number, expiry: resolved?.expiry ?? sessionExpiry };
}

function echoOf(fields: SaveTokenFields): EchoedFields {
  return { billing: fields.billing, customer: fields.customer, device: fields.device, externalTokenProvider: fields.externalTokenProvider };
}
