import type { JsonObject, MerchantContext } from '@gateway/contracts';
import type { ReservedAnnouncement } from '@gateway/order-transaction/data-access';
import type { EntityManager } from 'typeorm';

/** An order was created or updated by a record. */
export interface OrderRecordedEvent {
  merchant: MerchantContext;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  createdOrder: boolean;
  /** The order's webhook address (https), if any request on it named one. */
  notificationUrl: string | null;
  /** The stored response body of the operation, order group completed. */
  body: JsonObject;
  recordedAt: Date;
}

/**
 * A transaction recorded UNKNOWN completed later with the outcome learned since
 * (ResolveUnknown). It carries no merchant profile: nobody sent one, since no merchant request
 * is being served (docs/decisions/unknown-resolution.md).
 */
export interface OutcomeLearnedEvent {
  merchantId: string;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  /** The order's webhook address (https), if any request on it named one. */
  notificationUrl: string | null;
  /** The transaction's stored response as the learned outcome replaced it, order group completed. */
  body: JsonObject;
  recordedAt: Date;
  /**
   * How the operation's completion would have announced the outcome, as kept with its
   * reservation (LedgerEvents.reservedAnnouncement): null when it would not have been announced,
   * or for a transaction recorded before the ledger kept it (undefined: a seam or caller
   * without it).
   */
  reserved?: ReservedAnnouncement | null;
}

/**
 * The webhook outbox's seam (docs/decisions/webhook-outbox-seam.md). Called inside the
 * record's database transaction, after the ledger's own writes and before commit, with that
 * transaction's EntityManager: an outbox row written through it commits or rolls back with
 * the ledger change it announces. Implementations must not call out of the process here.
 */
export interface LedgerEvents {
  /**
   * Whether orderRecorded may write anything for this event. A new order whose record announces
   * nothing is written by its one insert statement alone, with no transaction around it.
   */
  announces(event: OrderRecordedEvent): boolean;
  orderRecorded(manager: EntityManager, event: OrderRecordedEvent): Promise<void>;
  /**
   * What a record that leaves a card transaction's outcome open (a reservation, an UNKNOWN
   * outcome) keeps on the transaction so that its resolution, which serves no request, announces
   * the outcome as the completion would have: null when `event` (the record as its completion
   * would announce it) would write nothing. No I/O. A seam without it keeps nothing.
   */
  reservedAnnouncement?(event: OrderRecordedEvent): ReservedAnnouncement | null;
  /**
   * Announces a learned outcome as the operation's completion would have (its reserved
   * announcement), or, for a transaction recorded before the ledger kept one, if the UNKNOWN one
   * was announced; answers whether it wrote anything. Called the same way, inside the record's database transaction. A seam without it
   * announces no learned outcome.
   */
  outcomeLearned?(manager: EntityManager, event: OutcomeLearnedEvent): Promise<boolean>;
  /**
   * Announces a transaction recorded from the acquirer's records (RecordLostTransaction) on an
   * order whose notifications the outbox still holds; answers whether it wrote anything. Called
   * the same way. A seam without it announces none.
   */
  recordedFromAcquirer?(manager: EntityManager, event: OutcomeLearnedEvent): Promise<boolean>;
}

export const LEDGER_EVENTS = Symbol('LEDGER_EVENTS');
