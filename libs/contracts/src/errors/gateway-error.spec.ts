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

  it('keeps an explanation across the wire and leaves other numbers readable', () => {
    const error = GatewayError.invalidRequest(`Transaction '${CARD}' on order 'o-20261126' was already processed; 1712345678901 ms.`);
    const carried = GatewayError.fromWire(JSON.parse(JSON.stringify(error.toWire())));
    expect(carried.explanation).toBe(error.explanation);
    expect(carried.explanation).toBe("Transaction '512345xxxxxx0008' on order 'o-20261126' was already processed; 1712345678901 ms.");
    expect(new GatewayError('SERVER_FAILED').explanation).toBeUndefined();
  });
});
