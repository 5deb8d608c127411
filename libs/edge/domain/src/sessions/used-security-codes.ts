import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, type OperationSession } from '@gateway/contracts';
import { SESSION_STORE, SessionCard, sessionState, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger, NotDeliveredError } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { SessionEditor } from './session-editor';
import { sessionExpired } from './session-errors';

/** A session card with a security code that an operation took: the session as the operation read it. */
export interface SecurityCodeInUse {
  session: StoredSession & { card: SessionCard };
}

/** What `take` answers: the session the operation sends and, when this operation took the code, what `giveBack` needs. */
export interface TakenSecurityCode {
  session: OperationSession;
  /** The session as the taking wrote it, and the card it held before (with the code). Absent: the operation goes without the code. */
  taken?: { amended: StoredSession; card: SessionCard };
}

/** Tries at taking the code while the session changes under the operation, each sealing the card again without it. */
const SECURITY_CODE_TAKE_ATTEMPTS = 3;

/**
 * A session's security code reaches an acquirer once (PCI DSS: no sensitive authentication data
 * after the authorisation; ARCHITECTURE "Security"; docs/decisions/security-code-used-once.md).
 * An operation that took the session's card with its code takes the code out of the session
 * just before it is sent: the card is sealed again without the code and the session amended
 * (the same version and expiry: it is the gateway's change, not the merchant's update, so a
 * version the merchant holds stays good) by a compare-and-set on the state the operation read.
 * Of operations that read the session together (on other orders, or on one order while another
 * held it), one wins the compare-and-set and sends the code; the others find the code gone and
 * send the card they read without it. Only the code the operation took goes, wherever an update
 * has carried it since (an update giving a new expiry keeps the card's code): a code the payer
 * entered after it is left for the next operation.
 */
@Injectable()
export class UsedSecurityCodes {
  constructor(
    private readonly editor: SessionEditor,
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * Takes the code for one operation, to be sent right after: the session it sends, its sealed
   * card with the code when this operation took it out of the session, else without. Once sent,
   * the acquirer may have had the code, whatever the answer: it is given back (`giveBack`) only
   * when the operation was refused unprocessed. Throws when the code could not be taken (the
   * vault or the store failed: the operation is not sent), or when the session expired
   * meanwhile (the merchant is told so, as a moment later it would be; a code never outlives its
   * session). Its seals share `deadline` with the operation (sent with the time left to it): a
   * seal with none left is not sent (NotDeliveredError), and the code was not taken.
   */
  async take(context: RequestContext, used: SecurityCodeInUse, deadline: number): Promise<TakenSecurityCode> {
    const read = used.session;
    const givenIn = read.card.securityCodeGivenIn;
    const withoutCode = await this.editor.withoutSecurityCode(context, read, deadline);
    let session: StoredSession = read;
    // The card with the code as the store holds it (an update may have sealed it again since the read), and without.
    let withCode: SessionCard = read.card;
    let card = withoutCode;
    for (let attempt = 1; ; attempt++) {
      const amended = { ...session, card };
      const outcome = await this.store.amend(amended, sessionState(session));
      if (outcome === 'REPLACED') {
        return { session: { id: read.id, sealedCard: read.card.sealed }, taken: { amended, card: withCode } };
      }
      if (outcome === 'CONFLICT' && attempt === SECURITY_CODE_TAKE_ATTEMPTS) {
        this.logger.warn({ sessionId: read.id }, 'session security code not taken: the session kept changing; the operation goes without it');
        return { session: { id: read.id, sealedCard: withoutCode.sealed } };
      }
      const found = outcome === 'GONE' ? null : await this.store.find(context.merchant.id, read.id);
      if (found?.state !== 'ACTIVE') {
        throw sessionExpired('session.id', read.id);
      }
      session = found.session;
      if (!session.card?.securityCodePresent || session.card.securityCodeGivenIn !== givenIn) {
        // Another operation took it first, or the payer entered a new code since this one read the session.
        return { session: { id: read.id, sealedCard: withoutCode.sealed } };
      }
      withCode = session.card;
      card = await this.editor.withoutSecurityCode(context, session, deadline);
    }
  }

  /**
   * `send`'s answer, for the operation whose taking `sent` is (undefined: it took no code). Refused
   * unprocessed (NotDeliveredError: never sent, the edge's NATS connection draining, closed or not
   * made, or no time left to the operation's deadline; nobody serving the subject; a service over its in-flight cap; an operation past its
   * deadline), it reached no acquirer, and the code goes back (`giveBack`)
   * before the refusal is passed on; after any other failure it stays used.
   */
  async sending<T>(sent: TakenSecurityCode | undefined, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      if (sent && (err instanceof NotDeliveredError || refusedBeforeAnyAcquirer(err))) {
        await this.giveBack(sent);
      }
      throw err;
    }
  }

  /**
   * Puts a code this operation took back into the session, for an operation that was refused
   * unprocessed (NotDeliveredError: nobody serving the subject, a service over its in-flight cap,
   * an operation past its deadline): no acquirer had it, so it is still unused, and the
   * merchant's retry sends it. Never after a timeout or any other answer: the acquirer may have
   * had it. The compare-and-set expects the session exactly as the taking left it: if anything
   * changed since (an update, perhaps with a new code; the session expired) the code stays gone,
   * as it would have without this. Meanwhile other operations read the session without the code
   * and sent none, so it is still used once at most. Best effort: a failure is logged, never
   * thrown, and the operation's own answer stands.
   */
  async giveBack(sent: TakenSecurityCode): Promise<void> {
    if (!sent.taken) {
      return;
    }
    const { amended, card } = sent.taken;
    try {
      const outcome = await this.store.amend({ ...amended, card }, sessionState(amended));
      if (outcome !== 'REPLACED') {
        this.logger.info({ sessionId: amended.id, outcome }, 'session security code not given back: the session changed or expired since it was taken');
      }
    } catch (err) {
      this.logger.warn({ err, sessionId: amended.id }, 'session security code not given back: the session store failed; the code stays out of the session');
    }
  }
}

/**
 * LOCK_FAILURE from a stale fencing token, refused at the ledger's begin or reservation, before
 * the operation presented the card to an acquirer: the code is unused, like one refused
 * unprocessed. A service of the release before does not say so: the code then stays used, as it
 * was (security-code-used-once.md, amendment 2026-11-27).
 */
function refusedBeforeAnyAcquirer(err: unknown): boolean {
  return err instanceof GatewayError && err.code === 'ORDER_LOCK_LOST' && err.beforeAnyAcquirer === true;
}
