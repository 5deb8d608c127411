import { describeRequest, RequestClass } from '@gateway/api-fields';
import { ORDER_OPERATION_REQUESTS } from './validate-request';
import { SaveTokenRequest } from './save-token.request';
import { SessionUpdateRequest } from './session.request';

/**
 * Which fields refuse a card number written into them (FreeTextField,
 * docs/decisions/card-numbers-in-free-text.md), pinned by name: the request-field tests take
 * each field's cases from its own decorator, so a field turned back into a plain String would
 * change those cases rather than fail them.
 */
function freeTextFields(request: RequestClass): string[] {
  return describeRequest(request)
    .filter((field) => field.decorator === '@FreeTextField')
    .map((field) => field.path);
}

const NOTES = ['order.customerNote', 'transaction.merchantNote'];
const ORDER_TEXT = ['order.description', 'order.item[n].description', 'order.item[n].name'];
const TRANSACTION_ITEMS = ['transaction.item[n].description', 'transaction.item[n].name'];
/** Keyed beside the card number, where a payer's browser autofill or a checkout form mix-up puts the number. */
const NAME_ON_CARD = 'sourceOfFunds.provided.card.nameOnCard';

describe('fields of human text (a card number refused in them)', () => {
  it.each([
    ['VERIFY', [...NOTES, 'order.description', NAME_ON_CARD]],
    ['AUTHORIZE', [...NOTES, ...ORDER_TEXT, NAME_ON_CARD]],
    ['PAY', [...NOTES, ...ORDER_TEXT, NAME_ON_CARD]],
    ['INITIATE_BROWSER_PAYMENT', [...NOTES, ...ORDER_TEXT]],
    ['CONFIRM_BROWSER_PAYMENT', [...NOTES, ...ORDER_TEXT]],
    ['CAPTURE', [...NOTES, ...TRANSACTION_ITEMS]],
    ['REFUND', [...NOTES, ...TRANSACTION_ITEMS, NAME_ON_CARD]],
    ['VOID', NOTES],
  ] as const)('%s', (operation, expected) => {
    expect(freeTextFields(ORDER_OPERATION_REQUESTS[operation]).sort()).toEqual([...expected].sort());
  });

  it('a payment session, which the operations fill their fields from', () => {
    expect(freeTextFields(SessionUpdateRequest).sort()).toEqual([...NOTES, ...ORDER_TEXT, ...TRANSACTION_ITEMS, NAME_ON_CARD].sort());
  });

  it('in a token, only the name on its card: it holds a card and a billing address, no text of the merchant', () => {
    expect(freeTextFields(SaveTokenRequest)).toEqual([NAME_ON_CARD]);
  });
});
