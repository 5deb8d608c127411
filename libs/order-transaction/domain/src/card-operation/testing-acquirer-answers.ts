import type {
  AuthorizeCardResult,
  CaptureResult,
  ProcessedTransaction,
  RefundResult,
  VoidResult,
} from '@gateway/acquirer';
import type { Money } from '@gateway/money';

/** What a connector answers, as the acquirer-answer checks' unit tests stub it (any answer, however wrong). */
type Code = ProcessedTransaction['gatewayCode'];
type Result = ProcessedTransaction['result'];

function processed(gatewayCode: Code, result: Result): ProcessedTransaction {
  return {
    gatewayCode,
    result,
    acquirer: {
      id: 'TEST_ACQUIRER',
      merchantId: 'M1',
      transactionId: 'MCC0000011121',
      date: '1127',
      time: '101010',
    },
    authorizationResponse: {
      date: '1127',
      processingCode: '000000',
      stan: '123456',
      time: '101010',
      transactionIdentifier: 'ABC',
    },
    receipt: '000000123456',
  };
}

/** An AUTHORIZE's or PAY's answer. */
export function authorizationAnswer(
  approved: Money,
  requested: Money,
  gatewayCode: Code = 'APPROVED',
  result: Result = 'SUCCESS',
): AuthorizeCardResult {
  return {
    ...processed(gatewayCode, result),
    authorizationCode: '123456',
    card: {
      maskedNumber: '512345xxxxxx0008',
      brand: 'MASTERCARD',
      scheme: 'MASTERCARD',
      fundingMethod: 'CREDIT',
      expiry: { month: 1, year: 39 },
    },
    cardSecurityCode: { gatewayCode: 'MATCH' },
    avs: { gatewayCode: 'NOT_REQUESTED' },
    approvedAmount: approved,
    requestedAmount: requested,
  };
}

export const captureAnswer = (amount: Money, gatewayCode: Code = 'APPROVED'): CaptureResult => ({
  ...processed(gatewayCode, 'SUCCESS'),
  amount,
});
export const refundAnswer = (amount: Money, gatewayCode: Code = 'APPROVED'): RefundResult => ({
  ...processed(gatewayCode, 'SUCCESS'),
  amount,
});
export const voidAnswer = (gatewayCode: Code = 'APPROVED'): VoidResult => processed(gatewayCode, 'SUCCESS');
