import { Inject, Injectable } from '@nestjs/common';
import type { Agreement, RequestEnvelope, TransactionResult } from '@gateway/contracts';
import { AgreementRepository, StoredAgreement } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { termsToEstablish } from './agreement-terms';

/** A VERIFY, AUTHORIZE or PAY that named an agreement, once its outcome was recorded. */
export interface AgreementOperationOutcome {
  readonly envelope: RequestEnvelope;
  readonly orderId: string;
  readonly transactionId: string;
  readonly apiOperation: 'VERIFY' | 'AUTHORIZE' | 'PAY';
  readonly currency: string;
  /** The agreement the operation ran on (agreementForOperation). */
  readonly agreement: Agreement | undefined;
  /** What `established` answered before the operation (null: not established then). */
  readonly established: StoredAgreement | null;
  /** The recorded result; only a SUCCESS establishes. */
  readonly result: TransactionResult | undefined;
  readonly at: Date;
}

/**
 * The merchants' agreements (docs/decisions/agreements.md): the terms a later payment reuses,
 * read before the acquirer call, and established after the first success. A request without
 * `agreement.id` costs no statement.
 */
@Injectable()
export class Agreements {
  constructor(
    private readonly repository: AgreementRepository,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** The merchant's agreement of the request's id, as established; null without an id or when none is. */
  established(envelope: RequestEnvelope, given: Agreement | undefined): Promise<StoredAgreement | null> {
    return given?.id === undefined
      ? Promise.resolve(null)
      : this.repository.find(envelope.merchant.id, given.id);
  }

  /**
   * After the operation's record: the first SUCCESS naming an id not established yet
   * establishes it with the terms it ran on, in one statement that writes nothing when another
   * operation established it first (a race of first payments: the first to commit wins).
   * Never fails the operation, which is recorded and answered: a failed write is logged, and
   * the next successful operation naming the id establishes it.
   */
  async establishAfter(outcome: AgreementOperationOutcome): Promise<void> {
    const { agreement, established } = outcome;
    if (outcome.result !== 'SUCCESS' || agreement?.id === undefined || established !== null) {
      return;
    }
    try {
      await this.repository.establish(
        outcome.envelope.merchant.id,
        agreement.id,
        termsToEstablish(agreement, outcome.currency),
        {
          orderId: outcome.orderId,
          transactionId: outcome.transactionId,
          apiOperation: outcome.apiOperation,
          at: outcome.at,
        },
      );
    } catch (err) {
      this.logger.error(
        {
          err,
          agreementId: agreement.id,
          orderId: outcome.orderId,
          transactionId: outcome.transactionId,
          apiOperation: outcome.apiOperation,
        },
        'agreement not established after a successful payment: the next successful payment naming it will establish it',
      );
    }
  }
}
