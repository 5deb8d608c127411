import { plainToInstance, Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, validateSync, ValidateNested } from 'class-validator';
import { RecordOperationMessage } from './messages';
import { toMessage, Verbatim } from './verbatim';

class Line {
  @IsString()
  sku: string;

  @IsOptional()
  @Verbatim()
  @IsObject()
  extra?: Record<string, unknown>;
}

class Basket {
  @Verbatim((value) => ({ adopted: value }))
  @IsObject()
  owner: { adopted: unknown };

  @ValidateNested({ each: true })
  @Type(() => Line)
  lines: Line[];
}

class Order {
  @IsString()
  id: string;

  @Verbatim()
  @IsObject()
  body: Record<string, unknown>;

  @ValidateNested()
  @Type(() => Basket)
  basket: Basket;
}

class PriorityOrder extends Order {
  @Verbatim()
  @IsObject()
  priority: Record<string, unknown>;
}

const problems = (message: object) => validateSync(message, { forbidUnknownValues: false }).map((e) => e.property);

describe('toMessage: Verbatim properties', () => {
  it('keeps the value as it arrived, the same object, not a copy, and class-transforms the rest', () => {
    const body = { card: { number: 'x' }, list: [{ a: 1 }] };
    const plain = { id: 'o-1', body, basket: { owner: { name: 'n' }, lines: [{ sku: 's' }] } };

    const order = toMessage(Order, plain);

    expect(order).toBeInstanceOf(Order);
    expect(order.body).toBe(body);
    expect(order.basket).toBeInstanceOf(Basket);
    expect(order.basket.lines[0]).toBeInstanceOf(Line);
    expect(problems(order)).toEqual([]);
  });

  it('fills Verbatim properties of nested messages, of messages in arrays, and of the classes a message extends', () => {
    const extra = { colour: 'red' };
    const priority = { level: 1 };
    const owner = { name: 'n' };
    const plain = { id: 'o-1', body: {}, priority, basket: { owner, lines: [{ sku: 'a' }, { sku: 'b', extra }] } };

    const order = toMessage(PriorityOrder, plain);

    expect(order.priority).toBe(priority);
    expect(order.body).toEqual({});
    expect(order.basket.owner).toEqual({ adopted: owner });
    expect(order.basket.owner.adopted).toBe(owner);
    expect(order.basket.lines[1].extra).toBe(extra);
    expect('extra' in order.basket.lines[0]).toBe(false);
  });

  it('still runs the property validators on what arrived', () => {
    const order = toMessage(Order, { id: 'o-1', body: 'not an object', basket: { owner: {}, lines: [{ sku: 's', extra: 7 }] } });

    expect(problems(order)).toEqual(['body', 'basket']);
  });

  it('leaves an absent property absent, and tolerates a message that is not an object', () => {
    expect('body' in toMessage(Order, { id: 'o-1' })).toBe(false);
    expect(() => toMessage(Order, 'text')).not.toThrow();
  });

  it('is left out by a bare plainToInstance (only toMessage fills it)', () => {
    expect(plainToInstance(Order, { id: 'o-1', body: { a: 1 } }).body).toBeUndefined();
  });

  it("keeps the ledger's record message's response body and order details as they arrived", () => {
    const response = { result: 'SUCCESS', order: { id: 'o-1' } };
    const details = { billing: { address: { city: 'Paris' } } };
    const record = toMessage(RecordOperationMessage, { response, order: { currency: 'EUR', details } });

    expect(record.response).toBe(response);
    expect(record.order.details).toBe(details);
  });
});
