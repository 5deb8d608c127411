import { GatewayError, LedgerOrderView, LedgerTransactionView } from '@gateway/contracts';

/** Orders and transactions as begin presents them, for the plans' unit tests. */
let sequence = 0;
export function txn(id: string, type: LedgerTransactionView['type'], amount: string, extra: Partial<LedgerTransactionView> = {}): LedgerTransactionView {
  return {
    id,
    type,
    apiOperation: type,
    amount,
    currency: 'USD',
    result: 'SUCCESS',
    gatewayCode: 'APPROVED',
    fundingType: 'CARD',
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, sequence++)).toISOString(),
    ...extra,
  };
}

export function orderOf(transactions: LedgerTransactionView[]): LedgerOrderView {
  return {
    id: 'order-1',
    currency: 'USD',
    amount: '100.00',
    status: 'AUTHORIZED',
    totalAuthorizedAmount: '0',
    totalCapturedAmount: '0',
    totalRefundedAmount: '0',
    creationTime: '2030-01-01T00:00:00.000Z',
    lastUpdatedTime: '2030-01-01T00:00:00.000Z',
    transactions,
  };
}

export function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError) {
      return err;
    }
    throw err;
  }
  throw new Error('expected a refusal');
}
