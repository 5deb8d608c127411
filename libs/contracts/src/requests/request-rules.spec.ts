import { showValue } from '@gateway/api-fields';
import fc from 'fast-check';
import { GatewayError } from '../errors';
import { validateOrderOperationRequest, validateTokenRequest } from './validate-request';

/** The stateless cross-field rules (issue 3, item 4), through the operations' validation. */

function rejection(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError) {
      return { field: err.field, validationType: err.validationType, explanation: err.explanation };
    }
    throw err;
  }
  throw new Error('expected the request to be rejected');
}

const initiate = (order: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiOperation: 'INITIATE_BROWSER_PAYMENT',
  browserPayment: { returnUrl: 'https://merchant.example/return' },
  order: { currency: 'USD', ...order },
  sourceOfFunds: { type: 'PROVIDER_C' },
  ...extra,
});
const confirm = (order: Record<string, unknown>) => ({ apiOperation: 'CONFIRM_BROWSER_PAYMENT', order });
const item = (quantity: string, unitPrice: string, unitTaxAmount?: string) => ({ name: 'item', quantity, unitPrice, ...(unitTaxAmount ? { unitTaxAmount } : {}) });

describe('amount consistency (initiate and confirm)', () => {
  it('accepts 3 items of 0.1 against itemAmount 0.3 and amount 0.3, with no floating-point error', () => {
    const body = initiate({ amount: '0.3', itemAmount: '0.3', item: [item('1', '0.1'), item('1', '0.1'), item('1', '0.1')] });
    expect(validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body).order.itemAmount).toBe('0.3');
    expect(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm(body.order))).not.toThrow();
  });

  it('rejects item sums that are off by 0.001', () => {
    const body = initiate({ currency: 'BHD', amount: '0.301', itemAmount: '0.301', item: [item('3', '0.1')] });
    expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body))).toEqual({
      field: 'order.itemAmount',
      validationType: 'INVALID',
      explanation: "Value '0.301' is invalid. itemAmount must equal the sum of quantity x unitPrice of order.item (0.3).",
    });
  });

  it('rejects sub-totals that do not sum to order.amount, off by 0.001', () => {
    const body = initiate({ currency: 'KWD', amount: '10.001', itemAmount: '8', shippingAndHandlingAmount: '1.5', taxAmount: '0.5' });
    expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body))).toMatchObject({
      field: 'order.amount',
      validationType: 'INVALID',
    });
    expect(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', initiate({ ...body.order, amount: '10' }))).not.toThrow();
  });

  it('on a confirm, leaves sub-totals it does not give to browser-payment (they keep their initiated values)', () => {
    // 27.00 = 22.00 items + the initiate's 5.00 shipping: only browser-payment knows the 5.00.
    expect(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ amount: '27.00', itemAmount: '22.00' }))).not.toThrow();
    expect(
      rejection(() =>
        validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ amount: '31', itemAmount: '20', shippingAndHandlingAmount: '5', taxAmount: '5' })),
      ),
    ).toMatchObject({ field: 'order.amount', validationType: 'INVALID' });
    expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', initiate({ amount: '27.00', itemAmount: '22.00' })))).toMatchObject({
      field: 'order.amount',
    });
  });

  it('checks taxAmount against the items that carry unitTaxAmount', () => {
    const items = [item('2', '5', '0.5'), item('1', '10')];
    expect(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ taxAmount: '1', item: items }))).not.toThrow();
    expect(rejection(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ taxAmount: '1.01', item: items })))).toMatchObject({
      field: 'order.taxAmount',
    });
    // Items without unit tax say nothing about the order's tax.
    expect(() =>
      validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ taxAmount: '3', item: [item('1', '10')] })),
    ).not.toThrow();
  });

  it('sums negative unit prices (discount lines) exactly', () => {
    const body = initiate({ amount: '9.99', itemAmount: '9.99', item: [item('1', '10.99'), item('1', '-1')] });
    expect(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body)).not.toThrow();
  });

  it('accepts large exact sums of many items and rejects them off by one minor unit (property)', () => {
    const items = fc.array(
      fc.tuple(fc.bigInt({ min: 1n, max: 9999n }), fc.bigInt({ min: 0n, max: 99_999_999n })),
      { minLength: 1, maxLength: 20 },
    );
    fc.assert(
      fc.property(items, (list) => {
        const cents = list.reduce((sum, [quantity, price]) => sum + quantity * price, 0n);
        fc.pre(cents > 1n && cents < 10n ** 13n);
        const text = (value: bigint) => `${value / 100n}.${String(value % 100n).padStart(2, '0')}`;
        const lines = list.map(([quantity, price]) => item(String(quantity), text(price)));
        const body = (total: bigint) => initiate({ amount: text(total), itemAmount: text(total), item: lines });
        expect(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body(cents))).not.toThrow();
        expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body(cents - 1n)))).toMatchObject({
          field: 'order.itemAmount',
        });
      }),
    );
  });
});

describe('amounts against the currency minor units', () => {
  it.each([
    ['USD', '10.5', true],
    ['USD', '10.50', true],
    ['USD', '10.505', false],
    ['JPY', '100', true],
    ['JPY', '100.5', false],
    ['BHD', '1.005', true],
    ['BHD', '1.0005', false],
  ])('%s %s accepted: %s', (currency, amount, accepted) => {
    const body = { apiOperation: 'REFUND', transaction: { amount, currency } };
    if (accepted) {
      expect(validateOrderOperationRequest('REFUND', body).transaction.amount).toBe(amount);
    } else {
      expect(rejection(() => validateOrderOperationRequest('REFUND', body))).toEqual({
        field: 'transaction.amount',
        validationType: 'INVALID',
        explanation:
          currency === 'JPY'
            ? "Value '100.5' is invalid. amount must be a whole number for JPY, which has no minor unit."
            : `Value '${amount}' is invalid. amount must have at most ${currency === 'USD' ? 2 : 3} decimal places for ${currency}.`,
      });
    }
  });

  it('checks every amount of the request, line items and tax breakdown included', () => {
    const body = initiate({ currency: 'JPY', amount: '100', tax: [{ amount: '1.5' }] });
    expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body))).toMatchObject({ field: 'order.tax[0].amount' });
    const refund = { apiOperation: 'REFUND', transaction: { amount: '1', currency: 'JPY', item: [item('1', '1'), item('1', '0.5')] } };
    expect(rejection(() => validateOrderOperationRequest('REFUND', refund))).toMatchObject({ field: 'transaction.item[1].unitPrice' });
    // A transaction's tax too, though within its amount: a capture's or refund's tax of 1.5 JPY is no amount.
    for (const operation of ['REFUND', 'CAPTURE'] as const) {
      const taxed = { apiOperation: operation, transaction: { amount: '10', currency: 'JPY', taxAmount: '1.5' } };
      expect(rejection(() => validateOrderOperationRequest(operation, taxed))).toEqual({
        field: 'transaction.taxAmount',
        validationType: 'INVALID',
        explanation: "Value '1.5' is invalid. taxAmount must be a whole number for JPY, which has no minor unit.",
      });
    }
    const verify = {
      apiOperation: 'VERIFY',
      order: { currency: 'JPY' },
      sourceOfFunds: { type: 'CARD' },
      agreement: { maximumAmountPerPayment: '1.5' },
    };
    expect(rejection(() => validateOrderOperationRequest('VERIFY', verify))).toMatchObject({ field: 'agreement.maximumAmountPerPayment' });
  });

  it('rejects a currency ISO 4217 does not list', () => {
    expect(rejection(() => validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount: '1', currency: 'ZZZ' } }))).toEqual({
      field: 'transaction.currency',
      validationType: 'INVALID',
      explanation: "Value 'ZZZ' is invalid. currency must be an ISO 4217 currency code.",
    });
  });

  it.each([
    ['REFUND', 'transaction.currency', (currency: string) => validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount: '1', currency } })],
    ['CAPTURE', 'transaction.currency', (currency: string) => validateOrderOperationRequest('CAPTURE', { apiOperation: 'CAPTURE', transaction: { amount: '1', currency } })],
    ['INITIATE_BROWSER_PAYMENT', 'order.currency', (currency: string) => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', initiate({ amount: '1', currency }))],
    ['CONFIRM_BROWSER_PAYMENT', 'order.currency', (currency: string) => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ amount: '1', currency }))],
    [
      'PAY',
      'order.currency',
      (currency: string) =>
        validateOrderOperationRequest('PAY', { apiOperation: 'PAY', order: { amount: '1', currency }, sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } }),
    ],
    ['VERIFY', 'order.currency', (currency: string) => validateOrderOperationRequest('VERIFY', { apiOperation: 'VERIFY', order: { currency }, sourceOfFunds: { type: 'CARD' } })],
    ['TOKEN', 'transaction.currency', (currency: string) => validateTokenRequest({ sourceOfFunds: { type: 'CARD' }, transaction: { currency } })],
  ])('%s refuses %s that ISO 4217 does not list, and takes one it does', (_operation, field, send) => {
    expect(rejection(() => send('ZZZ'))).toEqual({
      field,
      validationType: 'INVALID',
      explanation: "Value 'ZZZ' is invalid. currency must be an ISO 4217 currency code.",
    });
    expect(() => send('EUR')).not.toThrow();
  });

  it('leaves a confirm without a currency to browser-payment, which knows the initiate', () => {
    expect(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ amount: '1.005' }))).not.toThrow();
  });
});

describe('amounts greater than zero', () => {
  it.each(['0', '0.00', '.0'])('rejects a refund of %s', (amount) => {
    expect(rejection(() => validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount, currency: 'USD' } }))).toEqual({
      field: 'transaction.amount',
      validationType: 'INVALID',
      explanation: `Value '${amount}' is invalid. amount must be greater than zero.`,
    });
  });

  it('rejects a browser payment of zero, initiated or confirmed', () => {
    expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', initiate({ amount: '0' })))).toMatchObject({ field: 'order.amount' });
    expect(rejection(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirm({ amount: '0' })))).toMatchObject({ field: 'order.amount' });
  });

  it('accepts the smallest positive amount', () => {
    expect(() => validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount: '0.01', currency: 'USD' } })).not.toThrow();
  });
});

describe('fields required in context', () => {
  it('requires the bank identifier for provider_b', () => {
    const body = initiate({ amount: '1' }, { sourceOfFunds: { type: 'PROVIDER_B' } });
    expect(rejection(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body))).toMatchObject({
      field: 'sourceOfFunds.provided.provider_b.bankIdentifier',
      validationType: 'MISSING',
    });
    const complete = initiate({ amount: '1' }, { sourceOfFunds: { type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '12345678' } } } });
    expect(validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', complete).sourceOfFunds.provided?.provider_b?.bankIdentifier).toBe('12345678');
    // Only provider_b: the payer gives provider_a and provider_c nothing before the redirect.
    for (const type of ['PROVIDER_A', 'PROVIDER_C']) {
      expect(() => validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', initiate({ amount: '1' }, { sourceOfFunds: { type } }))).not.toThrow();
    }
  });

  const card = { number: '5123450000000008' };
  it.each(['NONE', 'BASIC', 'ACQUIRER'])('leaves the card expiry of token verification strategy %s to the vault: a session or the token may hold it', (strategy) => {
    expect(() => validateTokenRequest({ verificationStrategy: strategy, session: { id: 'SESSION0000000000000000000000001' }, sourceOfFunds: { type: 'CARD' } })).not.toThrow();
    expect(() => validateTokenRequest({ verificationStrategy: strategy, sourceOfFunds: { type: 'CARD', provided: { card } } })).not.toThrow();
  });

  it('requires sourceOfFunds.type on a token request unless a token alone is given', () => {
    expect(() => validateTokenRequest({ sourceOfFunds: { token: '9123456789012345' } })).not.toThrow();
    expect(rejection(() => validateTokenRequest({ sourceOfFunds: { provided: { card } } }))).toMatchObject({
      field: 'sourceOfFunds.type',
      validationType: 'MISSING',
    });
    // Card details beside the token are card data passed: the type is no longer optional.
    expect(rejection(() => validateTokenRequest({ sourceOfFunds: { token: '9123456789012345', provided: { card } } }))).toMatchObject({
      field: 'sourceOfFunds.type',
      validationType: 'MISSING',
    });
  });

  it('requires posTerminal.name within posTerminal on a refund', () => {
    const refund = { apiOperation: 'REFUND', transaction: { amount: '1', currency: 'USD' } };
    expect(rejection(() => validateOrderOperationRequest('REFUND', { ...refund, posTerminal: { attended: 'ATTENDED' } }))).toMatchObject({
      field: 'posTerminal.name',
      validationType: 'MISSING',
    });
    expect(() => validateOrderOperationRequest('REFUND', refund)).not.toThrow();
  });

  it('requires keySerialNumber and payload within p2pe on a token', () => {
    const p2pe = (fields: Record<string, string>) => ({ sourceOfFunds: { type: 'CARD', provided: { card: { p2pe: fields } } } });
    expect(rejection(() => validateTokenRequest(p2pe({ payload: 'ab'.repeat(16) })))).toMatchObject({
      field: 'sourceOfFunds.provided.card.p2pe.keySerialNumber',
      validationType: 'MISSING',
    });
    expect(rejection(() => validateTokenRequest(p2pe({ keySerialNumber: 'f'.repeat(20) })))).toMatchObject({
      field: 'sourceOfFunds.provided.card.p2pe.payload',
      validationType: 'MISSING',
    });
    expect(() => validateTokenRequest(p2pe({ keySerialNumber: 'f'.repeat(20), payload: 'ab'.repeat(16) }))).not.toThrow();
  });
});

describe('amounts the API can answer (docs/decisions/amount-bounds.md)', () => {
  const card = { number: '5123450000000008', expiry: { month: '1', year: '39' } };
  const cardPayment = (apiOperation: 'PAY' | 'AUTHORIZE') => (order: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    apiOperation,
    order: { currency: 'USD', ...order },
    sourceOfFunds: { type: 'CARD', provided: { card } },
    ...extra,
  });
  const transactionOperation = (apiOperation: 'REFUND' | 'CAPTURE') => (transaction: Record<string, unknown>) => ({
    apiOperation,
    transaction: { currency: 'USD', ...transaction },
  });
  const verify = (extra: Record<string, unknown>, currency = 'USD') => ({
    apiOperation: 'VERIFY',
    order: { currency },
    sourceOfFunds: { type: 'CARD', provided: { card } },
    ...extra,
  });

  /** Each operation's main amount, as a body with that amount, and the amount's path. */
  /** Each operation's amounts outside the order's sub-totals and items: the path, and a body with it set. */
  const mainAmounts: [string, string, (amount: string) => Record<string, unknown>][] = [
    ['PAY', 'order.amount', (amount) => cardPayment('PAY')({ amount })],
    ['AUTHORIZE', 'order.amount', (amount) => cardPayment('AUTHORIZE')({ amount })],
    ['CAPTURE', 'transaction.amount', (amount) => transactionOperation('CAPTURE')({ amount })],
    ['REFUND', 'transaction.amount', (amount) => transactionOperation('REFUND')({ amount })],
    ['INITIATE_BROWSER_PAYMENT', 'order.amount', (amount) => initiate({ amount })],
    ['CONFIRM_BROWSER_PAYMENT', 'order.amount', (amount) => confirm({ amount })],
    ['CONFIRM_BROWSER_PAYMENT', 'order.amount', (amount) => confirm({ amount, currency: 'USD' })],
    ['VERIFY', 'authentication.amount', (amount) => verify({ authentication: { amount } })],
    ['PAY', 'authentication.amount', (amount) => cardPayment('PAY')({ amount: '1' }, { authentication: { amount } })],
  ];

  it.each(mainAmounts)('%s accepts %s of exactly 1000000000000', (operation, _path, body) => {
    expect(() => validateOrderOperationRequest(operation as never, body('1000000000000'))).not.toThrow();
    expect(() => validateOrderOperationRequest(operation as never, body('999999999999.9'))).not.toThrow();
  });

  it.each(mainAmounts)('%s refuses %s above 1000000000000', (operation, path, body) => {
    for (const amount of ['1000000000001', '10000000000000', '99999999999999']) {
      expect(rejection(() => validateOrderOperationRequest(operation as never, body(amount)))).toEqual({
        field: path,
        validationType: 'INVALID',
        // The value as explanations quote it (long digit runs are masked like card numbers).
        explanation: `Value '${showValue(amount)}' is invalid. amount must be at most 1000000000000.`,
      });
    }
    // Longer than DecIn's 14 characters: its type refuses it first, on the same field.
    expect(rejection(() => validateOrderOperationRequest(operation as never, body('1000000000000.01')))).toMatchObject({
      field: path,
      validationType: 'INVALID',
    });
  });

  it.each([
    ['PAY', (amounts: Record<string, unknown>) => cardPayment('PAY')({ amount: '1', ...amounts })],
    ['INITIATE_BROWSER_PAYMENT', (amounts: Record<string, unknown>) => initiate({ amount: '1', ...amounts })],
    ['CONFIRM_BROWSER_PAYMENT', (amounts: Record<string, unknown>) => confirm(amounts)],
  ] as const)('%s bounds every order amount: sub-totals and tax breakdown', (operation, body) => {
    for (const name of ['itemAmount', 'shippingAndHandlingAmount', 'taxAmount']) {
      expect(rejection(() => validateOrderOperationRequest(operation, body({ [name]: '99999999999999' })))).toMatchObject({
        field: `order.${name}`,
        validationType: 'INVALID',
      });
    }
    expect(rejection(() => validateOrderOperationRequest(operation, body({ tax: [{ amount: '1' }, { amount: '1000000000001' }] })))).toMatchObject({
      field: 'order.tax[1].amount',
      validationType: 'INVALID',
    });
  });

  it.each([
    ['REFUND', transactionOperation('REFUND')],
    ['CAPTURE', transactionOperation('CAPTURE')],
  ] as const)('%s bounds transaction.taxAmount', (operation, body) => {
    expect(rejection(() => validateOrderOperationRequest(operation, body({ amount: '1', taxAmount: '99999999999999' })))).toMatchObject({
      field: 'transaction.taxAmount',
      validationType: 'INVALID',
    });
  });

  describe('line items: unit price and unit tax between -1000000000000 and 1000000000000', () => {
    const withItems: [string, string, (items: unknown[]) => Record<string, unknown>][] = [
      ['REFUND', 'transaction.item', (items) => transactionOperation('REFUND')({ amount: '1', item: items })],
      ['CAPTURE', 'transaction.item', (items) => transactionOperation('CAPTURE')({ amount: '1', item: items })],
      ['PAY', 'order.item', (items) => cardPayment('PAY')({ amount: '1', item: items })],
      ['AUTHORIZE', 'order.item', (items) => cardPayment('AUTHORIZE')({ amount: '1', item: items })],
      ['INITIATE_BROWSER_PAYMENT', 'order.item', (items) => initiate({ amount: '1', item: items })],
      ['CONFIRM_BROWSER_PAYMENT', 'order.item', (items) => confirm({ item: items })],
    ];

    it.each(withItems)('%s accepts the bounds themselves', (operation, _prefix, body) => {
      const items = [item('1', '1000000000000', '1000000000000'), item('1', '-1000000000000', '-1000000000000')];
      expect(() => validateOrderOperationRequest(operation as never, body(items))).not.toThrow();
    });

    it.each(withItems)('%s refuses a unit price or unit tax past either bound, naming %s[n]', (operation, prefix, body) => {
      const cases: [unknown[], string, string][] = [
        [[item('1', '1'), item('1', '1000000000001')], `${prefix}[1].unitPrice`, `Value '${showValue('1000000000001')}' is invalid. unitPrice must be at most 1000000000000.`],
        [[item('1', '-1000000000001')], `${prefix}[0].unitPrice`, `Value '${showValue('-1000000000001')}' is invalid. unitPrice must be at least -1000000000000.`],
        [[item('1', '1', '99999999999999')], `${prefix}[0].unitTaxAmount`, `Value '${showValue('99999999999999')}' is invalid. unitTaxAmount must be at most 1000000000000.`],
        [[item('1', '1', '-1000000000001')], `${prefix}[0].unitTaxAmount`, `Value '${showValue('-1000000000001')}' is invalid. unitTaxAmount must be at least -1000000000000.`],
      ];
      for (const [items, field, explanation] of cases) {
        expect(rejection(() => validateOrderOperationRequest(operation as never, body(items)))).toEqual({ field, validationType: 'INVALID', explanation });
      }
    });
  });

  describe('agreement amounts per payment: the spec answers them up to 99999999999999', () => {
    it.each(['VERIFY', 'PAY'] as const)('%s accepts them beyond 1000000000000, up to the largest DecIn', (operation) => {
      const agreement = { minimumAmountPerPayment: '10000000000000', maximumAmountPerPayment: '99999999999999' };
      const body = operation === 'VERIFY' ? verify({ agreement }) : cardPayment('PAY')({ amount: '1' }, { agreement });
      expect(() => validateOrderOperationRequest(operation, body)).not.toThrow();
    });

    it('PAY checks them against the currency as VERIFY does', () => {
      const body = cardPayment('PAY')({ amount: '1', currency: 'JPY' }, { agreement: { maximumAmountPerPayment: '1.5' } });
      expect(rejection(() => validateOrderOperationRequest('PAY', body))).toMatchObject({ field: 'agreement.maximumAmountPerPayment', validationType: 'INVALID' });
    });
  });

  describe('CLF and UYW (ISO 4217 exponent 4): at most the 3 decimal places a response carries', () => {
    it.each(['CLF', 'UYW'])('%s 1.234 is accepted, 1.2345 refused with the reason', (currency) => {
      const refund = (amount: string) => ({ apiOperation: 'REFUND', transaction: { amount, currency } });
      expect(validateOrderOperationRequest('REFUND', refund('1.234')).transaction.amount).toBe('1.234');
      expect(() => validateOrderOperationRequest('REFUND', refund('1.2340'))).not.toThrow();
      expect(rejection(() => validateOrderOperationRequest('REFUND', refund('1.2345')))).toEqual({
        field: 'transaction.amount',
        validationType: 'INVALID',
        explanation: `Value '1.2345' is invalid. amount must have at most 3 decimal places for ${currency}: ISO 4217 gives ${currency} 4, but the gateway answers amounts with at most 3.`,
      });
    });

    it('applies to every amount of every operation', () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['PAY', cardPayment('PAY')({ amount: '1.2345', currency: 'CLF' }), 'order.amount'],
        ['AUTHORIZE', cardPayment('AUTHORIZE')({ amount: '1', currency: 'CLF', tax: [{ amount: '0.0001' }] }), 'order.tax[0].amount'],
        ['CAPTURE', transactionOperation('CAPTURE')({ amount: '1', currency: 'CLF', item: [item('1', '-0.0001')] }), 'transaction.item[0].unitPrice'],
        ['INITIATE_BROWSER_PAYMENT', initiate({ amount: '1.0001', currency: 'UYW' }), 'order.amount'],
        ['CONFIRM_BROWSER_PAYMENT', confirm({ amount: '1.0001', currency: 'UYW' }), 'order.amount'],
        ['VERIFY', verify({ agreement: { minimumAmountPerPayment: '1.0001' } }, 'CLF'), 'agreement.minimumAmountPerPayment'],
        ['PAY', cardPayment('PAY')({ amount: '1', currency: 'CLF' }, { authentication: { amount: '1.0001' } }), 'authentication.amount'],
      ];
      for (const [operation, body, field] of cases) {
        expect({ operation, ...rejection(() => validateOrderOperationRequest(operation as never, body)) }).toMatchObject({ operation, field, validationType: 'INVALID' });
      }
    });
  });
});

describe('a transaction\'s tax within its amount (CAPTURE, REFUND)', () => {
  const capture = (amount: string, taxAmount: string) => ({ apiOperation: 'CAPTURE', transaction: { amount, currency: 'USD', taxAmount } });
  const refund = (amount: string, taxAmount: string) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'USD', taxAmount } });

  it.each([
    ['CAPTURE', capture],
    ['REFUND', refund],
  ] as const)('rejects a %s whose taxAmount exceeds its amount, on transaction.taxAmount', (operation, body) => {
    expect(rejection(() => validateOrderOperationRequest(operation, body('1.00', '1000000000000')))).toEqual({
      field: 'transaction.taxAmount',
      validationType: 'INVALID',
      explanation: "Value '1000000000000' is invalid. taxAmount must be at most transaction.amount (1.00): the tax is part of the amount.",
    });
    expect(rejection(() => validateOrderOperationRequest(operation, body('10.00', '10.01')))).toMatchObject({ field: 'transaction.taxAmount' });
  });

  it.each([
    ['CAPTURE', capture],
    ['REFUND', refund],
  ] as const)('accepts a %s whose taxAmount is its whole amount, compared as decimals', (operation, body) => {
    expect(() => validateOrderOperationRequest(operation, body('10.00', '10'))).not.toThrow();
    expect(() => validateOrderOperationRequest(operation, body('9.5', '9.10'))).not.toThrow();
  });
});
