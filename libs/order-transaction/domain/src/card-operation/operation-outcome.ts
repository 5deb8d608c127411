import type { JsonObject, MaskedCard, TransactionResult } from '@gateway/contracts';

/** What a money-moving call came to, whoever made it: what every operation's response shows of it. */
export interface OperationOutcome {
  result: TransactionResult;
  /** response.gatewayCode */
  gatewayCode: string;
  acquirerCode?: string;
  acquirerMessage?: string;
  /** transaction.acquirer (id, merchantId, transactionId, date, time). */
  acquirer?: JsonObject;
  authorizationResponse?: JsonObject;
  /** transaction.receipt */
  receipt?: string;
  /** The card the call used, masked. */
  card?: MaskedCard;
}
