import { Injectable } from '@nestjs/common';
import {
  CreateTokenMessage,
  JsonObject,
  MerchantContext,
  OperationReply,
  SaveTokenRequest,
  SUBJECTS,
  TokenOperationMessage,
  TokenReferenceMessage,
  validateTokenRequest,
} from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import { envelopeOf, RequestContext } from '../api/request-envelope';
import { answerOrWarn } from '../api/unanswered-request';
import { ApplySession, FilledRequest } from '../apply-session/apply-session.use-case';
import { TakenSecurityCode, UsedSecurityCodes } from '../sessions/used-security-codes';

export interface TokenOperationCommand extends RequestContext {
  tokenId: string;
  body: JsonObject;
}

export type CreateTokenCommand = RequestContext & { body: JsonObject };

/**
 * SERVER_BUSY's explanations when the vault did not answer a change to a token in time. The
 * vault refuses a change it could only begin after this edge stopped waiting (the message's
 * deadline), but one that began in time may finish after it: the plain "busy, retry" would then
 * say that nothing was done (docs/decisions/operation-deadline.md, amendment on token operations).
 */
export const UNANSWERED_TOKEN_EXPLANATIONS = {
  save:
    'The gateway is busy and did not finish the request in time; the token may still have been saved. ' +
    'Retry the same request, or retrieve the token, before sending another change to it.',
  create:
    'The gateway is busy and did not finish the request in time; the token may still have been created. ' +
    'A retry may create another token: to make the save repeatable, name the token in the path (PUT).',
  remove: 'The gateway is busy and did not finish the request in time; the token may still have been deleted. Retry the request.',
} as const;
export type TokenReferenceCommand = RequestContext & { tokenId: string; responseControls?: { sensitiveData: string } };

/**
 * Create or update token: the vault owns the rules and serialises concurrent writes to one
 * token in its database, so no edge lock is taken.
 */
@Injectable()
export class DispatchTokenOperation {
  constructor(
    private readonly bus: MessageBus,
    private readonly sessions: ApplySession,
    private readonly usedSecurityCodes: UsedSecurityCodes,
  ) {}

  /** PUT .../token/{tokenid}: create or update token. */
  async execute(command: TokenOperationCommand): Promise<JsonObject> {
    return this.save(SUBJECTS.tokenVault.saveToken, UNANSWERED_TOKEN_EXPLANATIONS.save, command, command.tokenId);
  }

  /** POST .../token (beyond the spec): create with a token the vault generates; the same fields as create or update token. */
  async create(command: CreateTokenCommand): Promise<JsonObject> {
    return this.save(SUBJECTS.tokenVault.createToken, UNANSWERED_TOKEN_EXPLANATIONS.create, command);
  }

  /**
   * A save, of the token `tokenId` or of a new one whose id the vault generates. A named session
   * fills the request; every field of the whole is checked (apiOperation is UNSUPPORTED here)
   * before the vault is asked. Refused unprocessed, the save presented the card to no acquirer:
   * a session's security code it took goes back. The seals that take the code and the save share
   * one budget (`deadline`, the time this edge stops waiting), each sent with the time left to it:
   * the request waits NATS_REQUEST_TIMEOUT_MS at most, and the vault saves nothing it could only
   * begin after it. A save with no time left is not sent (NotDeliveredError), the code given back.
   */
  private async save(subject: string, unanswered: string, command: CreateTokenCommand, tokenId?: string): Promise<JsonObject> {
    const filled = await this.sessions.fill(command.merchant, SaveTokenRequest, command.body);
    const request = validateTokenRequest(filled.body);
    const deadline = this.bus.deadline();
    const { sent, taken } = await this.takeForSend(command, filled, request, deadline);
    const message: TokenOperationMessage | CreateTokenMessage = {
      envelope: envelopeOf(command),
      ...(tokenId === undefined ? {} : { tokenId }),
      ...sent,
      deadline,
    };
    const reply = await answerOrWarn(() => this.usedSecurityCodes.sending(taken, () => this.bus.request<OperationReply>(subject, message, { deadline })), unanswered);
    return reply.body;
  }

  /**
   * What of a filled request goes to the vault: the body and the session reference. When the save
   * may send the session's security code to an acquirer, the code is taken out of the session
   * first, right before the send (one save or operation sends it, whatever the answer); otherwise
   * it stays in the session for the operation that will use it.
   */
  private async takeForSend(
    context: RequestContext,
    filled: FilledRequest,
    request: SaveTokenRequest,
    deadline: number,
  ): Promise<{ sent: Pick<FilledRequest, 'body' | 'session'>; taken?: TakenSecurityCode }> {
    const used = mayUseSessionSecurityCode(request, context.merchant) ? filled.securityCode : undefined;
    const taken = used ? await this.usedSecurityCodes.take(context, used, deadline) : undefined;
    const session = taken ? taken.session : filled.session;
    return { sent: { body: filled.body, ...(session ? { session } : {}) }, taken };
  }

  /** GET .../token/{tokenid} (beyond the spec). */
  async retrieve(command: TokenReferenceCommand): Promise<JsonObject> {
    const message: TokenReferenceMessage = {
      envelope: envelopeOf(command),
      tokenId: command.tokenId,
      responseControls: command.responseControls,
      deadline: this.bus.deadline(),
    };
    return (await this.bus.request<OperationReply>(SUBJECTS.tokenVault.retrieveToken, message)).body;
  }

  /** DELETE .../token/{tokenid} (beyond the spec). */
  async remove(command: TokenReferenceCommand): Promise<JsonObject> {
    const message: TokenReferenceMessage = { envelope: envelopeOf(command), tokenId: command.tokenId, deadline: this.bus.deadline() };
    const reply = await answerOrWarn(() => this.bus.request<OperationReply>(SUBJECTS.tokenVault.deleteToken, message), UNANSWERED_TOKEN_EXPLANATIONS.remove);
    return reply.body;
  }
}

/**
 * Whether a save may send the session's security code to an acquirer: only ACQUIRER verification
 * (requested, or the repository's default: token rule 9, as the vault reads it) presents a card to
 * one. (A request with its own security code has no session code in use: ApplySession leaves it
 * out, as for every operation.) NONE and BASIC present the
 * card to nobody and the vault never stores a security code, so the code was not used: it stays
 * for the payment that will (docs/decisions/security-code-used-once.md, amendment of 2026-11-26).
 * Once an ACQUIRER save was sent, the code goes whatever the answer, as for order operations: a
 * refusal after the acquirer call cannot be told from one before it.
 */
function mayUseSessionSecurityCode(request: SaveTokenRequest, merchant: MerchantContext): boolean {
  return (request.verificationStrategy ?? merchant.settings.tokenRepository.defaultVerificationStrategy) === 'ACQUIRER';
}
