import { Inject, Injectable } from '@nestjs/common';
import {
  FindReplayMessage,
  FindReplayReply,
  GatewayError,
  JsonObject,
  ORDER_OPERATION_REQUESTS,
  ORDER_OPERATION_SUBJECTS,
  OperationReply,
  OrderApiOperation,
  OperationSession,
  OrderOperationMessage,
  readApiOperation,
  RetrieveOrderMessage,
  RetrieveTransactionMessage,
  SUBJECTS,
  unmaskRequested,
  validateOrderOperationRequest,
} from '@gateway/contracts';
import { Lease, LOCK_SERVICE, LockService } from '@gateway/locking';
import { APP_LOGGER, AppLogger, MessageBus, Metrics } from '@gateway/platform';
import { envelopeOf, RequestContext } from '../api/request-envelope';
import { answerOrWarn } from '../api/unanswered-request';
import { ApplySession, FilledRequest, GoneSession } from '../apply-session/apply-session.use-case';
import { TakenSecurityCode, UsedSecurityCodes } from '../sessions/used-security-codes';
import { lockFailureBody, ORDER_UNREAD } from './lock-failure-response';
import { assertNotificationUrlAllowed } from './notification-url';
import { OrderLocks } from './order-locks';

export const ORDER_LOCK_OPTIONS = Symbol('ORDER_LOCK_OPTIONS');

export interface OrderLockOptions {
  /** Bounded wait for the order's lock before answering LOCK_FAILURE. */
  waitMs: number;
  /** Lease length: longer than the slowest operation, so a live holder never loses it. */
  ttlMs: number;
}

/** How long a LOCK_FAILURE answer waits for the ledger's view of the order before it goes without. */
export const LOCK_FAILURE_ORDER_READ_MS = 1_000;

/**
 * SERVER_BUSY's explanation when the owning service did not answer an order operation in time: it
 * may still carry the operation out (docs/decisions/overload-behaviour.md, finding 2), so a retry
 * under a new transaction id could move the money twice. A refusal unprocessed (nobody serving
 * the subject, a service at its in-flight cap, an operation past its deadline) keeps the plain
 * explanation: nothing was done.
 */
export const UNANSWERED_OPERATION_EXPLANATION =
  'The gateway is busy and did not finish the request in time; the operation may still have been processed. ' +
  'Retry the request with the same transaction id, or retrieve the transaction; do not retry with a new transaction id.';

export interface OrderOperationCommand extends RequestContext {
  orderId: string;
  transactionId: string;
  body: JsonObject;
}

export interface OrderOperationResult {
  apiOperation: string;
  body: JsonObject;
}

/** An order operation that passed every check the edge makes before it locks the order. */
interface CheckedOperation {
  apiOperation: OrderApiOperation;
  /** The body, a named session's values filled in, and the session to send. */
  filled: FilledRequest;
}

/**
 * An order operation, once the request is authenticated and its path checked: check the whole
 * request, serialise operations on the order under its lock (or answer LOCK_FAILURE after the
 * bounded wait), and hand the operation, with the lock's fencing token, to the owning service.
 */
@Injectable()
export class DispatchOrderOperation {
  private readonly orderLocks: OrderLocks;

  constructor(
    private readonly bus: MessageBus,
    @Inject(LOCK_SERVICE) locks: LockService,
    @Inject(ORDER_LOCK_OPTIONS) private readonly lockOptions: OrderLockOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    private readonly sessions: ApplySession,
    private readonly usedSecurityCodes: UsedSecurityCodes,
  ) {
    this.orderLocks = new OrderLocks(locks, logger, metrics);
  }

  async execute(command: OrderOperationCommand): Promise<OrderOperationResult> {
    const operation = await this.checked(command);
    if ('gone' in operation) {
      return this.replayOrRefuse(command, operation.apiOperation, operation.gone);
    }
    const lease = await this.orderLocks.acquire(command.merchant.id, command.orderId, this.lockOptions);
    if (!lease) {
      // Counted here, not by OrderLocks: a payer's step that finds the order busy gets the retry
      // page, not a LOCK_FAILURE.
      this.metrics.lockFailures.inc();
      return this.lockFailure(command, operation);
    }
    try {
      return await this.sendUnderLock(command, operation, lease, this.bus.deadline());
    } catch (err) {
      // The ledger refused a stale fencing token: our lease lapsed and another operation took
      // the order. Nothing was written (services reverse their side effects first), so it is
      // answered like a lock we could not get, and the merchant may retry with the same id.
      if (err instanceof GatewayError && err.code === 'ORDER_LOCK_LOST') {
        this.metrics.lockFailures.inc();
        return this.lockFailure(command, operation);
      }
      throw err;
    } finally {
      this.orderLocks.release(lease);
    }
  }

  /**
   * Every check before the order is locked, so an invalid request costs no lock round trip and
   * never reaches a service. A session the request names fills it first (its own values win);
   * then every field of the whole is checked.
   */
  private async checked(command: OrderOperationCommand): Promise<CheckedOperation | (GoneSession & { apiOperation: OrderApiOperation })> {
    const apiOperation = readApiOperation(command.body);
    const filled = await this.sessions.fillUnlessGone(command.merchant, ORDER_OPERATION_REQUESTS[apiOperation], command.body);
    if ('gone' in filled) {
      return { apiOperation, gone: filled.gone };
    }
    const request = validateOrderOperationRequest(apiOperation, filled.body);
    // UNMASK without the permission and certificate authentication is a 400 on the field for
    // every operation, whatever it could show (ARCHITECTURE 6, docs/decisions/unmasking.md):
    // checked here once, so no operation can forget it. Services that show full numbers apply
    // the rule again to decide what they show.
    unmaskRequested(request, command.merchant, command.authMethod);
    assertNotificationUrlAllowed(filled.body, command.merchant);
    return { apiOperation, filled };
  }

  /**
   * The operation as its service receives it, sent while this edge holds the order's lock (`lease`).
   * Everything it waits on under the lock shares one budget, taken when the lock was: `deadline`
   * (`MessageBus.deadline()`). The replay check, the seals of a session's card and the operation
   * are each sent with the time left to it, and stamped with it, so the request as a whole waits
   * NATS_REQUEST_TIMEOUT_MS at most, however many it makes (docs/decisions/shutdown-grace.md,
   * amendment on one budget). One with no time left is not sent (NotDeliveredError): the merchant
   * is told nothing was done, and a security code taken goes back (`send`).
   */
  private async sendUnderLock(command: OrderOperationCommand, { apiOperation, filled }: CheckedOperation, lease: Lease, deadline: number): Promise<OrderOperationResult> {
    const { session, taken } = await this.sessionToSend(command, filled, deadline);
    const message: OrderOperationMessage = {
      envelope: { ...envelopeOf(command), fencingToken: lease.fencingToken },
      apiOperation,
      orderId: command.orderId,
      transactionId: command.transactionId,
      body: filled.body,
      ...(session ? { session } : {}),
      ...(filled.asSent ? { asSent: filled.asSent } : {}),
      // The service refuses the operation unprocessed if it could only begin it after this edge
      // stopped waiting (docs/decisions/operation-deadline.md).
      deadline,
    };
    const reply = await this.send(apiOperation, message, taken);
    return { apiOperation, body: reply.body };
  }

  /**
   * The operation's request to its service. Only its own timeout may have left the operation
   * running there; a read before it that timed out (the replay check, the vault's seal) sent
   * nothing, and keeps the plain explanation. An operation refused unprocessed (NotDeliveredError,
   * also when the reads before it left no time to send it: then it was not sent) reached no acquirer: a session's security code it took goes back into the session, under the
   * order's lock still, for the merchant's retry (docs/decisions/security-code-used-once.md).
   */
  private send(apiOperation: OrderApiOperation, message: OrderOperationMessage, taken: TakenSecurityCode | undefined): Promise<OperationReply> {
    return answerOrWarn(
      () => this.usedSecurityCodes.sending(taken, () => this.bus.request<OperationReply>(ORDER_OPERATION_SUBJECTS[apiOperation], message, { deadline: message.deadline })),
      UNANSWERED_OPERATION_EXPLANATION,
    );
  }

  /**
   * The session an operation sends. A session's security code is taken out of the session last,
   * under the lock, right before the send: one operation sends it, whatever its answer (unless
   * refused unprocessed: `taken` gives it back); one that read the session together with it goes
   * without (docs/decisions/security-code-used-once.md).
   * A replay is not such an operation: the ledger answers it from the stored response (or refuses
   * a changed body) and calls no acquirer, so it sends the session without its card and the code,
   * perhaps one the payer entered since, stays for the next operation that sends it.
   */
  private async sessionToSend(
    command: OrderOperationCommand,
    filled: FilledRequest,
    deadline: number,
  ): Promise<{ session?: OperationSession; taken?: TakenSecurityCode }> {
    if (!filled.securityCode) {
      return { session: filled.session };
    }
    if (await this.answeredBefore(command, deadline)) {
      return { session: { id: filled.securityCode.session.id } };
    }
    const taken = await this.usedSecurityCodes.take(command, filled.securityCode, deadline);
    return { session: taken.session, taken };
  }

  /**
   * Whether the ledger holds a response for this transaction id: then the operation is a replay,
   * answered without an acquirer call. Read under the order's lock, so no other operation can
   * record the transaction between this read and the send. A read that fails fails the
   * operation, unsent, as a failure to take the code does: the code stays.
   */
  private async answeredBefore(command: OrderOperationCommand, deadline: number): Promise<boolean> {
    const read: RetrieveTransactionMessage = {
      envelope: envelopeOf(command),
      orderId: command.orderId,
      transactionId: command.transactionId,
      // Refused unprocessed past it, as a merchant's GET: the operation is then not sent.
      deadline,
    };
    try {
      await this.bus.request<OperationReply>(SUBJECTS.orderTransaction.retrieveTransaction, read, { deadline });
      return true;
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'NOT_FOUND') {
        return false;
      }
      throw err;
    }
  }

  /**
   * An operation naming a session that is unknown or expired (deleted, or past its lifetime): the
   * edge cannot fill it, so it is never sent for execution. It may be the merchant's retry of one
   * that succeeded while the session lived (their first attempt timed out on their side): the
   * ledger answers the stored response if this transaction's request hash is that of the body as
   * sent (services hash that body, not the filled one: requestHashBasis), and the merchant gets the
   * replay a live session would have got. Otherwise (a first attempt, another body, a transaction
   * recorded before hashes were of the body as sent) the session's 400, as before.
   * One read, no lock, nothing reserved or recorded, no security code taken; only on this path,
   * so an operation whose session exists costs what it did. A ledger of the release before serves
   * no such subject: NotDeliveredError, SERVER_BUSY, retryable (message-compatibility-across-a-roll.md,
   * rule 5); never the operation sent without the session's values.
   */
  private async replayOrRefuse(command: OrderOperationCommand, apiOperation: OrderApiOperation, gone: GatewayError): Promise<OrderOperationResult> {
    const deadline = this.bus.deadline();
    const find: FindReplayMessage = {
      envelope: envelopeOf(command),
      apiOperation,
      orderId: command.orderId,
      transactionId: command.transactionId,
      body: command.body,
      deadline,
    };
    const reply = await this.bus.request<FindReplayReply>(SUBJECTS.orderTransaction.findReplay, find, { deadline });
    if (!reply.body) {
      throw gone;
    }
    return { apiOperation, body: reply.body };
  }

  /**
   * The LOCK_FAILURE answer, with the order as the ledger holds it now: a read, which needs no
   * lock and never waits for the operation holding it. Without that view (a new order, the
   * ledger slow or away) the answer goes out with what the request says; a merchant waiting on
   * a busy order is not kept waiting longer for the details. Only a new order's totals are
   * known (zero): an order the ledger did not answer for is answered without them.
   */
  private async lockFailure(command: OrderOperationCommand, { apiOperation, filled }: CheckedOperation): Promise<OrderOperationResult> {
    const refused = { apiOperation, orderId: command.orderId, transactionId: command.transactionId, body: filled.body, merchant: command.merchant };
    return { apiOperation, body: lockFailureBody(refused, await this.ledgerOrder(command)) };
  }

  /** The order as the ledger holds it now, for a LOCK_FAILURE answer: null when it does not exist yet. */
  private async ledgerOrder(command: OrderOperationCommand): Promise<JsonObject | null | typeof ORDER_UNREAD> {
    const read: RetrieveOrderMessage = {
      envelope: envelopeOf(command),
      orderId: command.orderId,
      // This read's own, shorter wait: once it is over the answer goes out without the order, so
      // the ledger reads nothing for it (docs/decisions/operation-deadline.md, amendment on reads).
      deadline: this.bus.deadline(LOCK_FAILURE_ORDER_READ_MS),
    };
    try {
      const reply = await this.bus.request<OperationReply>(SUBJECTS.orderTransaction.retrieveOrder, read, { timeoutMs: LOCK_FAILURE_ORDER_READ_MS });
      return reply.body;
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'NOT_FOUND') {
        return null;
      }
      this.logger.warn({ err, orderId: command.orderId }, 'LOCK_FAILURE answered without the order: the ledger did not answer the read');
      return ORDER_UNREAD;
    }
  }
}
