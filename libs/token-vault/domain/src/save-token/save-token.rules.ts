import { GatewayError, VerificationStrategy } from '@gateway/contracts';
import { maskPan, type Pan } from '@gateway/crypto';
import { CardExpiry } from '../cards/card-expiry';
import type { Instrument, ProviderAInstrument } from '../instrument/instrument';
import type { RepositoryPolicy } from '../repository/repository-policy';
import { preserve64Token, PRESERVE_6_4_MIN_LENGTH, randomToken } from '../token-formats/token-formats';
import type { SaveTokenFields } from './save-token-fields';

/**
 * The rules of "Create or update token" that need no I/O (spec token rules 1-5 and 9,
 * ARCHITECTURE 5; the choices the spec leaves open are in docs/decisions/token-vault-rules.md).
 */

const NUMBER = 'sourceOfFunds.provided.card.number';

/** What the request says about the instrument: a whole one, part of a card, or nothing (a token alone). */
export type RequestedInstrument = { type: 'CARD'; pan?: Pan; expiry?: CardExpiry } | ProviderAInstrument | null;

/**
 * The token a save addresses. PUT names it in the path (and `sourceOfFunds.token`, if sent,
 * must agree). POST creates: under Merchant-Supplied generation `sourceOfFunds.token` names the
 * new token and is required; other repositories generate the token, and `sourceOfFunds.token`
 * is not supported on creation (token rule 4). Null means "generate".
 */
export function addressedToken(pathToken: string | undefined, fields: SaveTokenFields, repository: RepositoryPolicy): string | null {
  const bodyToken = fields.sourceOfFunds.token;
  if (pathToken !== undefined) {
    if (bodyToken !== undefined && bodyToken !== pathToken) {
      throw GatewayError.invalidField('sourceOfFunds.token', 'INVALID', `Value '${bodyToken}' is invalid. It must be the token in the request path.`);
    }
    return pathToken;
  }
  if (repository.generation === 'MERCHANT_SUPPLIED') {
    if (bodyToken === undefined) {
      throw GatewayError.invalidField('sourceOfFunds.token', 'MISSING', 'Missing parameter sourceOfFunds.token: this repository takes merchant-supplied tokens.');
    }
    return bodyToken;
  }
  if (bodyToken !== undefined) {
    throw GatewayError.invalidField(
      'sourceOfFunds.token',
      'UNSUPPORTED',
      'Field sourceOfFunds.token may be supplied on creation only when the repository takes merchant-supplied tokens; this repository generates its tokens.',
    );
  }
  return null;
}

/** PUT creates only under Merchant-Supplied generation; elsewhere an unknown token is a 400. */
export function unknownTokenError(token: string, repository: RepositoryPolicy): GatewayError {
  return GatewayError.invalidRequest(
    `Token '${token}' does not exist in repository ${repository.id}. This repository generates its tokens: create them with POST .../token.`,
  );
}

/**
 * The instrument after the save: the request's values over the stored ones, field by field for
 * a card ("CARD to overwrite or augment token data"); a provider_a agreement is replaced whole.
 */
export function mergeInstrument(stored: Instrument | null, requested: RequestedInstrument): Instrument {
  if (requested === null) {
    if (!stored) {
      throw GatewayError.invalidField(NUMBER, 'MISSING', 'Missing parameter sourceOfFunds.provided.card.number: a new token needs card or provider_a billing agreement details.');
    }
    return stored;
  }
  if (requested.type === 'PROVIDER_A') {
    return requested;
  }
  const storedCard = stored?.type === 'CARD' ? stored : null;
  const pan = requested.pan ?? storedCard?.pan;
  if (!pan) {
    throw GatewayError.invalidField(NUMBER, 'MISSING', `Missing parameter ${NUMBER}: the token holds no card to update.`);
  }
  return { type: 'CARD', pan, expiry: requested.expiry ?? storedCard?.expiry ?? null };
}

/**
 * Rules of an update (token rule 3a and the billing agreement's cardinality): a Preserve 6.4
 * token keeps its account identifier, except that provider_a billing agreement ids may change;
 * a SINGLE billing agreement keeps its id ("same id each request").
 */
export function checkUpdate(repository: RepositoryPolicy, stored: Instrument, updated: Instrument, identifierChanged: boolean): void {
  const agreementToAgreement = stored.type === 'PROVIDER_A' && updated.type === 'PROVIDER_A';
  if (repository.generation === 'PRESERVE_6_4' && identifierChanged && !agreementToAgreement) {
    throw GatewayError.invalidField(
      updated.type === 'CARD' ? NUMBER : 'sourceOfFunds.type',
      'INVALID',
      'The account identifier of a token cannot change in a repository whose tokens preserve the card number\'s first six and last four digits.',
    );
  }
  if (
    agreementToAgreement &&
    stored.agreement.cardinality === 'SINGLE' &&
    updated.agreement.cardinality === 'SINGLE' &&
    stored.agreement.id !== updated.agreement.id
  ) {
    throw GatewayError.invalidField(
      'sourceOfFunds.provided.provider_a.billingAgreement.id',
      'INVALID',
      'The billing agreement of this token has SINGLE cardinality: each request carries the same billing agreement id.',
    );
  }
}

/** Token rule 3b (and the same rule for Unique Card, which keeps one token per card). */
export function accountHeldByAnotherToken(instrument: Instrument): GatewayError {
  return GatewayError.invalidField(
    instrument.type === 'CARD' ? NUMBER : 'sourceOfFunds.provided.provider_a.billingAgreement.id',
    'INVALID',
    'This account identifier is already stored against another token, and this repository keeps one token per account identifier.',
  );
}

/** The request's strategy, else the profile's (token rule 9); verification is for cards only. */
export function verificationStrategyFor(fields: SaveTokenFields, repository: RepositoryPolicy, instrument: Instrument): VerificationStrategy {
  if (instrument.type !== 'CARD') {
    if (fields.verificationStrategy && fields.verificationStrategy !== 'NONE') {
      throw GatewayError.invalidField(
        'verificationStrategy',
        'INVALID',
        `Value '${fields.verificationStrategy}' is invalid. Only card details can be verified.`,
      );
    }
    return 'NONE';
  }
  const strategy = fields.verificationStrategy ?? repository.defaultVerificationStrategy;
  if (strategy !== 'NONE' && !instrument.expiry) {
    throw GatewayError.invalidField(
      'sourceOfFunds.provided.card.expiry',
      'MISSING',
      `Missing parameter sourceOfFunds.provided.card.expiry: ${strategy} verification needs the card expiry.`,
    );
  }
  return strategy;
}

/** A new token in the repository's format (provider_a tokens of a Preserve 6.4 repository are Random). */
export function generateToken(repository: RepositoryPolicy, instrument: Instrument): string {
  if (repository.generation === 'PRESERVE_6_4' && instrument.type === 'CARD') {
    if (instrument.pan.length < PRESERVE_6_4_MIN_LENGTH) {
      throw GatewayError.invalidField(
        NUMBER,
        'INVALID',
        `The value is invalid. This repository preserves the first six and last four digits, which needs card numbers of at least ${PRESERVE_6_4_MIN_LENGTH} digits.`,
      );
    }
    return preserve64Token(instrument.pan);
  }
  // A Random token starts with 9, which no scheme's card does; a number stored unverified could
  // still be one, so a token equal to it (about one chance in 10^15) is drawn again.
  for (;;) {
    const token = randomToken();
    if (instrument.type !== 'CARD' || instrument.pan.reveal() !== token) {
      return token;
    }
  }
}

/**
 * A save drew `attempts` new tokens and every one was already another token of the repository: the
 * ids this card can have are (all but perhaps a few) taken. Under Preserve 6.4 that happens to
 * short card numbers stored many times (Unique Token management gives each save its own token); a
 * 400 on the number, like the other Preserve 6.4 refusals, since retrying would meet the same ids.
 * The number is never echoed.
 */
export function tokenIdsExhausted(repository: RepositoryPolicy, instrument: Instrument, attempts: number): GatewayError {
  if (repository.generation === 'PRESERVE_6_4' && instrument.type === 'CARD') {
    return GatewayError.invalidField(
      NUMBER,
      'INVALID',
      `The value is invalid. This repository keeps the first six and last four digits of the card number in its tokens, and no free token is left for this card: ${attempts} token ids drawn for it were all taken by tokens already stored. Delete tokens of this card that are no longer needed, or reuse one of them.`,
    );
  }
  return GatewayError.invalidRequest(
    `No free token could be generated in repository ${repository.id}: ${attempts} token ids drawn were all taken by tokens already stored.`,
  );
}

/**
 * A token is kept in clear (the token column, every response, request paths, logs): it must never
 * be the card number it holds. Checked on every save, whether the token is new, updated, or the
 * one a Unique Card redirect returns.
 *
 * A token the merchant names in the request under Merchant-Supplied generation must not even look
 * like the card: all digits and the same where the masked number shows digits (the first six, the
 * last four, the length). Refusing only the card itself would tell a merchant proposing token ids
 * for a card it never saw (a payment session's, filled in by the payer's browser) whether it
 * guessed the number, and the few hundred thousand guesses a masked number leaves would recover
 * it. Refusing every id that matches the mask tells it nothing the masked number does not.
 */
export function checkTokenIsNotTheCard(token: string, instrument: Instrument, field: string, chosenByMerchant: boolean): void {
  if (instrument.type !== 'CARD') {
    return;
  }
  const number = instrument.pan.reveal();
  if (chosenByMerchant ? ALL_DIGITS.test(token) && maskPan(token) === maskPan(number) : token === number) {
    throw GatewayError.invalidField(
      field,
      'INVALID',
      chosenByMerchant
        ? 'The value is invalid. A token must not be the card number, nor look like it: all digits, with the digits and the length its masked number shows.'
        : 'The value is invalid. A token must not be the card number.',
    );
  }
}

const ALL_DIGITS = /^\d+$/;
