import { MerchantContext, RecordOperationMessage } from '@gateway/contracts';
import { TEST_CARD } from '@gateway/testing';
import { servicesRequestHasher } from './e2e-state';

/**
 * A card PAY of `amount` USD as the ledger records it (transaction `pay-1`), for specs that seed an
 * order's captured funds over the ledger's record subject instead of paying over HTTP: the card
 * profile the spec always provides (brand, fundingMethod, scheme) included, so the refunds that
 * echo it conform.
 */
export function seededCardPayment(merchant: MerchantContext, orderId: string, amount: string): RecordOperationMessage {
  return {
    envelope: { merchant, apiVersion: 100, requestId: 'e2e-seed', authMethod: 'PASSWORD', fencingToken: '1' },
    orderId,
    transactionId: 'pay-1',
    apiOperation: 'PAY',
    requestHash: servicesRequestHasher().hash({ apiOperation: 'PAY', orderId }),
    mode: 'CREATE',
    order: { currency: 'USD' },
    transaction: { type: 'PAYMENT', amount, currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
    response: {
      sourceOfFunds: {
        type: 'CARD',
        provided: {
          card: { brand: 'MASTERCARD', expiry: { month: '1', year: '39' }, fundingMethod: 'CREDIT', number: TEST_CARD, scheme: 'MASTERCARD' },
        },
      },
      transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC0000420101' }, authorizationCode: '123456', receipt: '0001120000' },
    },
  };
}
