import { Injectable } from '@nestjs/common';
import type { BrowserPaymentRow, PaymentOperation } from '@gateway/browser-payment/data-access';
import {
  BeginOperationMessage,
  GatewayError,
  BeginOperationReply,
  JsonObject,
  RecordMode,
  RecordOperationMessage,
  OperationReply,
  RecordOperationReply,
  RequestEnvelope,
  RetrieveTransactionMessage,
  SUBJECTS,
  TransactionResult,
  TransactionType,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { MessageBus } from '@gateway/platform';
import { orderDetails } from '../payment/payment-response';
import { requestOf } from '../payment/stored-request';

export const TRANSACTION_TYPE_OF: Readonly<Record<PaymentOperation, TransactionType>> = {
  AUTHORIZE: 'AUTHORIZATION',
  PAY: 'PAYMENT',
};

/** The operation that creates a browser payment's transaction in the ledger. */
export const INITIATE_OPERATION = 'INITIATE_BROWSER_PAYMENT';

export interface RecordStep {
  envelope: RequestEnvelope;
  payment: BrowserPaymentRow;
  apiOperation: string;
  requestHash: string;
  mode: RecordMode;
  response: JsonObject;
  /** Whether the order's amount and details change (initiate, confirm). */
  orderChanged: boolean;
  /** Begin saw no order (an initiate opening it): the ledger's newOrder hint. */
  newOrder?: boolean;
}

/** browser-payment's side of the ledger protocol (ledger.messages.ts). */
@Injectable()
export class BrowserPaymentLedger {
  constructor(private readonly bus: MessageBus) {}

  begin(message: BeginOperationMessage): Promise<BeginOperationReply> {
    return this.bus.request(SUBJECTS.orderTransaction.ledgerBegin, message);
  }

  async record(step: RecordStep): Promise<JsonObject> {
    const { payment } = step;
    const order = requestOf(payment).order;
    const amount = Money.of(payment.amount, payment.currency).toFixed();
    // Recorded as a card payment's is, so a full refund defaults its tax to it (refund rule 5).
    const tax = order.taxAmount;
    const message: RecordOperationMessage = {
      envelope: step.envelope,
      orderId: payment.orderId,
      transactionId: payment.transactionId,
      apiOperation: step.apiOperation,
      requestHash: step.requestHash,
      mode: step.mode,
      // Every step after the initiate continues the transaction the initiate created.
      ...(step.mode === 'UPDATE' ? { updates: INITIATE_OPERATION } : {}),
      ...(step.newOrder ? { newOrder: true } : {}),
      order: step.orderChanged
        ? {
            currency: payment.currency,
            amount,
            details: orderDetails(payment),
            ...(order.notificationUrl ? { notificationUrl: order.notificationUrl } : {}),
          }
        : { currency: payment.currency },
      transaction: {
        type: TRANSACTION_TYPE_OF[payment.operation],
        amount,
        currency: payment.currency,
        result: payment.result as TransactionResult,
        gatewayCode: payment.gatewayCode,
        fundingType: requestOf(payment).sourceOfFunds.type,
        ...(tax === undefined ? {} : { taxAmount: Money.of(tax, payment.currency).toFixed() }),
      },
      response: step.response,
    };
    const reply = await this.bus.request<RecordOperationReply>(SUBJECTS.orderTransaction.ledgerRecord, message);
    return reply.body;
  }

  /**
   * The ledger's record of the payment's transaction: the stored response of the latest step it
   * recorded on it (as the merchant's retrieval reads it), or null when it holds no such
   * transaction. Read without the order's lock.
   */
  async readRecord(envelope: RequestEnvelope, payment: BrowserPaymentRow): Promise<JsonObject | null> {
    const message: RetrieveTransactionMessage = { envelope, orderId: payment.orderId, transactionId: payment.transactionId };
    try {
      return (await this.bus.request<OperationReply>(SUBJECTS.orderTransaction.retrieveTransaction, message)).body;
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'NOT_FOUND') {
        return null;
      }
      throw err;
    }
  }
}
