import { scrub, scrubString } from './scrub';

/** `leaf` under `levels` objects: scrub sees it at depth `levels`. */
function nested(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { inner: value };
  return value;
}

describe('scrubString', () => {
  it('masks a card number 6…4 and leaves other digits readable', () => {
    expect(scrubString('card 5123450000000008 declined')).toBe('card 512345…0008 declined');
    // 13 digits that fail Luhn: an epoch in milliseconds, not a card number.
    expect(scrubString('retry at 1712345678901')).toBe('retry at 1712345678901');
    expect(scrubString('order 123456789012')).toBe('order 123456789012');
  });

  it('masks a card number inside a longer digit run', () => {
    // Followed by its expiry: 20 digits, more than a card number has.
    expect(scrubString('card 41111111111111111231')).toBe('card 411111…1231');
    // One digit more either side: 17 digits that fail Luhn as a whole.
    expect(scrubString('41111111111111110')).toBe('411111…1110');
    expect(scrubString('x04111111111111111x')).toBe('x041111…1111x');
  });

  it('checks each run of 13-19 digits whole and masks any longer run', () => {
    const line = `${'1111111111111111111 '.repeat(5_000)}${'7'.repeat(100_000)}`;
    // 19 ones hold no stretch of 13 or more that passes Luhn; 100,000 sevens are masked.
    expect(scrubString(line)).toBe(`${'1111111111111111111 '.repeat(5_000)}777777…7777`);
  });
});

describe('scrub', () => {
  it('redacts secret keys and masks card numbers in nested strings', () => {
    expect(scrub({ req: { headers: { authorization: 'Basic abc' }, note: 'pan 4111111111111111' } })).toEqual(
      {
        req: { headers: { authorization: '[REDACTED]' }, note: 'pan 411111…1111' },
      },
    );
  });

  it('keeps what lies within the depth limit', () => {
    expect(scrub(nested(8, { note: 'ok' }))).toEqual(nested(8, { note: 'ok' }));
    expect(scrub(nested(8, { cardNumber: '4111111111111111' }))).toEqual(
      nested(8, { cardNumber: '[REDACTED]' }),
    );
  });

  it('replaces what lies past the depth limit instead of logging it unscrubbed', () => {
    const deep = nested(10, { cardNumber: '4111111111111111', note: 'card 5123450000000008' });
    const logged = JSON.stringify(scrub(deep));
    expect(logged).not.toContain('4111111111111111');
    expect(logged).not.toContain('5123450000000008');
    expect(scrub(deep)).toEqual(nested(9, '[Truncated]'));
    expect(scrub(nested(9, ['4111111111111111']))).toEqual(nested(9, '[Truncated]'));
  });

  it('ends a cycle at the depth limit', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    expect(() => JSON.stringify(scrub(cyclic))).not.toThrow();
  });

  it('scrubs an error with its cause', () => {
    const err = new Error('card 41111111111111111231 refused', { cause: new Error('pan 5123450000000008') });
    const logged = scrub(err) as { message: string; cause: { message: string } };
    expect(logged.message).toBe('card 411111…1231 refused');
    expect(logged.cause.message).toBe('pan 512345…0008');
    // The stack repeats the message: it is masked too, the cause's as well.
    const all = JSON.stringify(logged);
    expect(all).toContain('card 411111…1231 refused');
    expect(all).not.toContain('41111111111111111231');
    expect(all).not.toContain('5123450000000008');
  });

  // Values that are no card number (a security code, a password, an IBAN) are hidden by their
  // key alone: masking digits would leave every one of them readable.
  it.each([
    'authorization', 'Proxy-Authorization', 'cookie', 'password', 'passwd', 'apiPassword', 'secret', 'notificationSecret',
    'X-Notification-Secret', 'securityCode', 'cvv', 'cvc', 'csc', 'track1', 'track2', 'trackData', 'pan', 'cardNumber',
    'number', 'accountNumber', 'bankAccountNumber', 'iban', 'payload', 'masterKey', 'dataKey', 'privateKey', 'apiKey',
    // Card data too, though no secret alone (a response shows it beside the masked number).
    'expiry', 'expiryMonth', 'expiryYear',
  ])('redacts %s whatever its value', (key) => {
    expect(scrub({ card: { [key]: '123', type: 'CARD' } })).toEqual({ card: { [key]: '[REDACTED]', type: 'CARD' } });
    expect(scrub({ card: { [key]: { value: 'GB82WEST12345698765432' } } })).toEqual({ card: { [key]: '[REDACTED]' } });
  });
});

describe('scrub of a payer\'s personal data', () => {
  // The request's groups and fields as the API names them, in whatever line they slip into.
  it.each([
    ['customer', { email: 'zelda@example.org', firstName: 'Zelda', phone: '+44 7911 123456' }],
    ['billing', { address: { street: '17 Marigoldweg', postcodeZip: 'ZP9 4QX', city: 'Veldhoven' } }],
    ['shipping', { contact: { lastName: 'Zanzibarova' }, address: { street: '88 Tulpenlaan' } }],
    ['device', { ipAddress: '203.0.113.77', browser: 'PrivacyBrowser/9.1' }],
    ['recipient', { firstName: 'Bo', identification: { type: 'PASSPORT', value: 'P1234567' } }],
    ['nameOnCard', 'QUINTESSA ZANZIBAROVA'],
    ['accountEmail', 'zelda@wallet.example'],
    ['accountHolder', 'Quintessa Zanzibarova'],
    ['bankAccountHolder', 'Quintessa Zanzibarova'],
    ['email', 'zelda@example.org'],
    ['phone', '+44 7911 123456'],
    ['mobilePhone', '+44 7911 123456'],
    ['firstName', 'Quintessa'],
    ['middleName', 'Q'],
    ['lastName', 'Zanzibarova'],
    ['street', '17 Marigoldweg'],
    ['street2', 'Flat 3'],
    ['postcodeZip', 'ZP9 4QX'],
    ['ipAddress', '203.0.113.77'],
    ['customerNote', 'leave at the door'],
    ['merchantNote', 'regular customer, Zelda'],
    ['custom', { loyaltyNumber: 'L-778812' }],
  ])('redacts %s whatever it holds', (key, value) => {
    expect(scrub({ body: { order: { id: 'order-1', [key]: value } } })).toEqual({ body: { order: { id: 'order-1', [key]: '[REDACTED]' } } });
  });

  it("redacts an agreement's custom data wherever the agreement is, and keeps other custom data", () => {
    const agreement = { id: 'agr-7', type: 'RECURRING', customData: 'member zelda-42' };
    expect(scrub({ agreement })).toEqual({ agreement: { ...agreement, customData: '[REDACTED]' } });
    expect(scrub({ body: { order: { id: 'order-1' }, agreement } })).toEqual({ body: { order: { id: 'order-1' }, agreement: { ...agreement, customData: '[REDACTED]' } } });
    expect(scrub({ transactions: [{ agreement }] })).toEqual({ transactions: [{ agreement: { ...agreement, customData: '[REDACTED]' } }] });
    // Not the payer's: the acquirer's (it rejects sensitive data) and a token provider's site code.
    const others = { transaction: { acquirer: { customData: 'batch 12' } }, externalTokenProvider: { customData: 'site-3' }, customData: 'x' };
    expect(scrub(others)).toEqual(others);
  });

  it("cuts a notification URL's query and fragment, and shows it without user info", () => {
    const url = 'https://hooks:s3cret@Merchant.example:443/hooks/v1?customer=zelda-42&token=abc123#top';
    // As written otherwise: the host's case and the port stay.
    expect(scrub({ order: { notificationUrl: url } })).toEqual({ order: { notificationUrl: 'https://Merchant.example:443/hooks/v1' } });
    expect(scrub({ notificationUrl: 'https://merchant.example/hooks?email=zelda%40example.org' })).toEqual({ notificationUrl: 'https://merchant.example/hooks' });
    const plain = { notificationUrl: 'https://merchant.example:8443/hooks' };
    expect(scrub(plain)).toEqual(plain);
    // A return URL is cut as the erasure cuts it too (its origin and path).
    expect(scrub({ browserPayment: { returnUrl: 'https://a:b@shop.example/back?basket=zelda-42#x' } })).toEqual({ browserPayment: { returnUrl: 'https://shop.example/back' } });
  });

  it('keeps the keys a log line of its own uses readable', () => {
    const line = { name: 'refund', url: 'http://127.0.0.1:8080', target: 'https://shop.example', peer: '10.0.0.7', orderId: 'o-1', subject: 'CN=shop' };
    expect(scrub(line)).toEqual(line);
    // Names matched whole: a key that only begins or ends with one is no personal field.
    const counts = { customerCount: 2, billingCycle: 'monthly', isCustom: false };
    expect(scrub(counts)).toEqual(counts);
  });

  it('masks e-mail addresses in free text, an explanation that quotes a refused value included', () => {
    expect(scrubString("Value 'zelda.privacy+1@mail.example.org' is invalid.")).toBe("Value '[email]' is invalid.");
    expect(scrubString('from a@b.co, to Z_Z%x@sub-1.example.museum.')).toBe('from [email], to [email].');
    expect(scrubString('a@b@c.org')).toBe('a@[email]');
    // What follows a masked address is read from its end: the address is not read again.
    expect(scrubString('a@b.co@c.org')).toBe('[email]@c.org');
  });

  it('leaves what is no e-mail address as it is', () => {
    for (const text of ['at Object.<anonymous> (/app/node_modules/@nestjs/core/router.js:10:3)', 'nats@2.29.1', 'user@localhost', '@', 'x@', '@example.org', 'x@a.b']) {
      expect(scrubString(text)).toBe(text);
    }
  });

  it('reads a long run of address characters once', () => {
    const line = `${'a'.repeat(200_000)}@${'b'.repeat(200_000)}@`.repeat(2);
    const started = process.hrtime.bigint();
    expect(scrubString(line)).toBe(line);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1_000);
  });

  it('masks an e-mail address in an error and in its cause', () => {
    const err = new Error("Value 'zelda@example.org' is invalid.", { cause: new Error('ship.to@example.org refused') });
    const logged = JSON.stringify(scrub(err));
    expect(logged).not.toContain('zelda@example.org');
    expect(logged).not.toContain('ship.to@example.org');
    expect(logged).toContain("Value '[email]' is invalid.");
  });
});

describe('scrub of URLs in free text', () => {
  it("drops a URL's user info, query and fragment wherever it is quoted", () => {
    // As fetch words its refusal of a URL with credentials: a webhook receiver's.
    expect(scrubString('Request cannot be constructed from a URL that includes credentials: https://hooks:s3cret@Merchant.example:443/hooks/v1?customer=zelda-42&token=abc123#top')).toBe(
      'Request cannot be constructed from a URL that includes credentials: https://Merchant.example:443/hooks/v1',
    );
    expect(scrubString(`redirect to 'https://shop.example/back?basket=zelda-42' and "http://b.example:8080/y#order-7" refused`)).toBe(
      `redirect to 'https://shop.example/back' and "http://b.example:8080/y" refused`,
    );
    expect(scrubString('delivery failed (https://merchant.example/hooks?email=zelda%40example.org).')).toBe('delivery failed (https://merchant.example/hooks).');
    expect(scrubString('https://user@merchant.example')).toBe('https://merchant.example');
  });

  it('leaves a URL with nothing to cut, and what is no URL, as they are', () => {
    for (const text of [
      'http://127.0.0.1:8080',
      'https://shop.example/path/with/segments',
      'at main (file:///app/dist/apps/api-edge/src/main.js:10:3)',
      'at Object.<anonymous> (node:internal/modules/cjs/loader:1:2)',
      'a :// b?c',
      '://x?y',
      'ratio 3:1 ok?',
    ]) {
      expect(scrubString(text)).toBe(text);
    }
  });

  it('cuts the URLs in an error and in its cause, message and stack', () => {
    const err = new Error('GET https://a:b@merchant.example/hooks?customer=zelda-42 failed', { cause: new Error('for https://shop.example/back#basket-9') });
    const logged = JSON.stringify(scrub(err));
    expect(logged).not.toMatch(/zelda-42|basket-9|a:b@/);
    expect(logged).toContain('GET https://merchant.example/hooks failed');
  });

  it('reads text of any shape once', () => {
    for (const text of ['://'.repeat(100_000), `x://${'a'.repeat(300_000)}`, 'a://a/'.repeat(50_000), `${'a'.repeat(300_000)}://b?c`]) {
      const started = process.hrtime.bigint();
      scrubString(text);
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1_000);
    }
  });
});

describe('scrub of numbers and grouped card numbers', () => {
  it('masks a card number logged as a number, and leaves other numbers as numbers', () => {
    expect(scrub({ value: 5123450000000008, count: 3, at: 1712345678901 })).toEqual({
      value: '512345…0008',
      count: 3,
      at: 1712345678901,
    });
    expect(scrub([BigInt('5123450000000008')])).toEqual(['512345…0008']);
  });

  it('masks a card number written in groups', () => {
    expect(scrub({ note: 'card 5123 4500 0000 0008 refused' })).toEqual({ note: 'card 512345…0008 refused' });
  });
});
