import { GatewayError } from './gateway-error';

const CARD = '5123450000000008';

describe('GatewayError', () => {
  it('masks a card number in any explanation, whoever built it: merchants choose the ids explanations quote', () => {
    const errors = [
      new GatewayError('NOT_FOUND', { explanation: `Token '${CARD}' does not exist in repository 1000000001.` }),
      GatewayError.invalidRequest(`Order '${CARD}' does not exist.`),
      GatewayError.invalidField('sourceOfFunds.token', 'INVALID', `Value '5123-4500-0000-0008' is invalid.`),
    ];
    expect(errors.map((error) => error.explanation)).toEqual([
      "Token '512345xxxxxx0008' does not exist in repository 1000000001.",
      "Order '512345xxxxxx0008' does not exist.",
      "Value '5123-45xx-xxxx-0008' is invalid.",
    ]);
    for (const error of errors) {
      expect(error.message).toBe(error.explanation);
      expect(JSON.stringify(error.toResponseBody()).replace(/-/g, '')).not.toContain(CARD);
    }
  });

  it('answers a field error with its field and validationType, cut to the lengths the Errors table gives them', () => {
    expect(GatewayError.invalidField('sourceOfFunds.type', 'MISSING', 'Missing parameter sourceOfFunds.type.').toResponseBody()).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: 'Missing parameter sourceOfFunds.type.', field: 'sourceOfFunds.type', validationType: 'MISSING' },
      result: 'ERROR',
    });
    // A custom field's path is longer than error.field's 100 characters; an explanation may pass 1000.
    const field = `order.custom.${'n'.repeat(99)}`;
    const body = GatewayError.invalidField(field, 'UNSUPPORTED', 'x'.repeat(1001)).toResponseBody();
    expect(body.error).toEqual({ cause: 'INVALID_REQUEST', explanation: 'x'.repeat(1000), field: field.slice(0, 100), validationType: 'UNSUPPORTED' });
  });

  it('gives an explanation only with INVALID_REQUEST or SERVER_BUSY, and a support code only with SERVER_FAILED or REQUEST_REJECTED', () => {
    for (const code of ['REQUEST_REJECTED', 'SERVER_FAILED'] as const) {
      expect(new GatewayError(code, { explanation: 'connection refused', supportCode: 'A1B2C3D4E5F6' }).toResponseBody()).toEqual({
        error: { cause: code, supportCode: 'A1B2C3D4E5F6' },
        result: 'ERROR',
      });
    }
    expect(new GatewayError('SERVER_BUSY', { explanation: 'The gateway is busy. Please retry the request.', supportCode: 'A1B2C3D4E5F6' }).toResponseBody()).toEqual({
      error: { cause: 'SERVER_BUSY', explanation: 'The gateway is busy. Please retry the request.' },
      result: 'ERROR',
    });
  });

  it('keeps an explanation across the wire and leaves other numbers readable', () => {
    const error = GatewayError.invalidRequest(`Transaction '${CARD}' on order 'o-20261126' was already processed; 1712345678901 ms.`);
    const carried = GatewayError.fromWire(JSON.parse(JSON.stringify(error.toWire())));
    expect(carried.explanation).toBe(error.explanation);
    expect(carried.explanation).toBe("Transaction '512345xxxxxx0008' on order 'o-20261126' was already processed; 1712345678901 ms.");
    expect(new GatewayError('SERVER_FAILED').explanation).toBeUndefined();
  });
});
