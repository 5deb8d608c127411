import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow, PaymentChanges } from '@gateway/browser-payment/data-access';
import { GatewayError, JsonObject, RequestEnvelope } from '@gateway/contracts';
import type { Money } from '@gateway/money';
import { APP_LOGGER, AppLogger, RequestHasher } from '@gateway/platform';
import { CLOCK, Clock } from '../browser-payment.options';
import { BrowserPaymentLedger } from '../ledger/browser-payment-ledger';
import type { ProviderAdapter } from '../providers/provider-adapter';
import { paymentResponse } from './payment-response';
import { PAYMENT_STORE, PaymentStore } from './payment-store';

export interface StepRecord {
  envelope: RequestEnvelope;
  /** The ledger's operation name for the step. */
  apiOperation: string;
  /** The canonical hash of the request that caused the step (the merchant's body, or the step's name). */
  requestHash: string;
  orderChanged?: boolean;
}

export interface StepOutcome {
  payment: BrowserPaymentRow;
  /** The response body as the ledger recorded it. */
  body: JsonObject;
}

/**
 * A step of a payment: its change and the ledger record of it, together (the change is rolled
 * back if the ledger refuses), and for the steps that execute the payment at the provider, the
 * reversal the ledger protocol asks for when the record is refused.
 */
@Injectable()
export class PaymentSteps {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly ledger: BrowserPaymentLedger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly requestHasher: RequestHasher,
  ) {}

  now(): Date {
    return this.clock.now();
  }

  /** The hash a journey step is recorded under: the same for every attempt at the step. */
  journeyStepHash(apiOperation: string, payment: BrowserPaymentRow): string {
    return this.requestHasher.hash({ apiOperation, transactionId: payment.transactionId });
  }

  /** Applies `changes` to the payment as it is and records it; ORDER_LOCK_LOST if another step moved it first. */
  async apply(payment: BrowserPaymentRow, changes: PaymentChanges, adapter: ProviderAdapter, record: StepRecord): Promise<StepOutcome> {
    const done = await this.store.transition(
      payment.id,
      { interactionStatus: payment.interactionStatus, result: payment.result },
      changes,
      (updated) =>
        this.ledger.record({
          envelope: record.envelope,
          payment: updated,
          apiOperation: record.apiOperation,
          requestHash: record.requestHash,
          mode: 'UPDATE',
          response: paymentResponse(updated, adapter.acquirerId),
          orderChanged: record.orderChanged ?? false,
        }),
    );
    if (!done) {
      throw new GatewayError('ORDER_LOCK_LOST', {
        explanation: 'Another operation changed the payment while this one was in progress. Please retry the request.',
      });
    }
    return { payment: done.payment, body: done.outcome };
  }

  /**
   * Executes the approved payment at the provider for `amount` (authorises or moves the money),
   * then completes it with the provider's answer. If the ledger refuses the record, the
   * execution is reversed at the provider before the error goes on, unless another attempt at
   * the step recorded it (two attempts racing find one execution at the provider, which answers
   * the second as already done: reversing it would void money the ledger shows as taken). An
   * ambiguous failure (no answer in time) is not reversed, because the record may have landed:
   * the step is retried instead. An earlier attempt that executed for another amount and was
   * never recorded is refused as such, never recorded as declined over money the provider holds.
   */
  async execute(
    payment: BrowserPaymentRow,
    amount: Money,
    adapter: ProviderAdapter,
    record: StepRecord,
    extra: PaymentChanges = {},
  ): Promise<StepOutcome> {
    const result = await adapter.execute(payment.providerReference, payment.operation, amount);
    if (result.executedFor) {
      throw GatewayError.invalidField(
        'order.amount',
        'INVALID',
        `Value '${amount.toFixed()}' is invalid. The payment was already executed at the provider for ${result.executedFor.toFixed()} ${result.executedFor.currency} by an earlier confirmation whose answer was lost: confirm it again with that amount to record it.`,
      );
    }
    const changes: PaymentChanges = {
      ...extra,
      amount: amount.toFixed(),
      interactionStatus: 'COMPLETED',
      timeCompleted: this.now(),
      result: result.approved ? 'SUCCESS' : 'FAILURE',
      gatewayCode: result.gatewayCode,
    };
    try {
      return await this.apply(payment, changes, adapter, record);
    } catch (err) {
      if (result.approved && refusedForSure(err) && !(await this.recordedAsExecuted(payment))) {
        await adapter.reverse(payment.providerReference).catch((reverseError: unknown) =>
          this.logger.error(
            { err: reverseError, provider: payment.provider, providerReference: payment.providerReference },
            'browser payment executed at the provider but neither recorded nor reversed',
          ),
        );
      }
      throw err;
    }
  }

  /** Whether another attempt at the step completed the payment successfully: the provider's one execution. */
  private async recordedAsExecuted(payment: BrowserPaymentRow): Promise<boolean> {
    const current = await this.store.findByTransaction(payment.merchantId, payment.orderId, payment.transactionId);
    return current?.interactionStatus === 'COMPLETED' && current.result === 'SUCCESS';
  }
}

function refusedForSure(err: unknown): boolean {
  return err instanceof GatewayError && (err.code === 'ORDER_LOCK_LOST' || err.httpStatus < 500);
}
