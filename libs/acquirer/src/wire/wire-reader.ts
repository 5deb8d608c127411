import type { JsonObject } from '@gateway/contracts';
import { Money, MoneyError } from '@gateway/money';

/**
 * A message between our own services that does not have the agreed shape: a fault between
 * processes, not a merchant error, so a plain Error (the RPC filter logs it under a support
 * code and answers SERVER_FAILED). Messages name the path, never the value: the value could
 * be card data.
 */
export class AcquirerWireError extends Error {
  override name = 'AcquirerWireError';
}

/** Money on the wire: the exact decimal as a string, and its currency. Never a JS number. */
export interface MoneyWire {
  value: string;
  currency: string;
}

export function moneyToWire(money: Money): MoneyWire {
  return { value: money.toString(), currency: money.currency };
}

/** Reads the fields of one wire object, reporting the first problem with its path. */
export class WireReader {
  private constructor(
    private readonly value: Readonly<Record<string, unknown>>,
    private readonly path: string,
  ) {}

  static of(value: unknown, path: string): WireReader {
    if (!isPlainObject(value)) {
      throw new AcquirerWireError(`${path} is not an object`);
    }
    return new WireReader(value, path);
  }

  has(key: string): boolean {
    return this.value[key] !== undefined;
  }

  string(key: string): string {
    const value = this.value[key];
    if (typeof value !== 'string') {
      throw new AcquirerWireError(`${this.at(key)} is not a string`);
    }
    return value;
  }

  optionalString(key: string): string | undefined {
    return this.has(key) ? this.string(key) : undefined;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T {
    const value = this.string(key);
    if (!(values as readonly string[]).includes(value)) {
      throw new AcquirerWireError(`${this.at(key)} is not one of the known values`);
    }
    return value as T;
  }

  integer(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw new AcquirerWireError(`${this.at(key)} is not an integer`);
    }
    return value;
  }

  optionalBoolean(key: string): boolean | undefined {
    const value = this.value[key];
    if (value !== undefined && typeof value !== 'boolean') {
      throw new AcquirerWireError(`${this.at(key)} is not a boolean`);
    }
    return value;
  }

  object(key: string): WireReader {
    return WireReader.of(this.value[key], this.at(key));
  }

  optionalObject(key: string): WireReader | undefined {
    return this.has(key) ? this.object(key) : undefined;
  }

  /**
   * A group of plain request data (cardholder, 3-D Secure, agreement...) the acquirer reads
   * as given: checked to be a JSON object, copied through.
   */
  optionalGroup<T>(key: string): T | undefined {
    return this.has(key) ? (this.object(key).value as T) : undefined;
  }

  money(key: string): Money {
    const money = this.object(key);
    try {
      return Money.of(money.string('value'), money.string('currency'));
    } catch (err) {
      if (err instanceof MoneyError) {
        throw new AcquirerWireError(`${this.at(key)} is not an amount in its currency`);
      }
      throw err;
    }
  }

  /** Fails on any key not in `allowed`: what must never travel is refused, not dropped. */
  only(allowed: readonly string[]): this {
    const extra = Object.keys(this.value).find((key) => !allowed.includes(key) && this.value[key] !== undefined);
    if (extra !== undefined) {
      throw new AcquirerWireError(`${this.at(extra)} is not allowed here`);
    }
    return this;
  }

  private at(key: string): string {
    return `${this.path}.${key}`;
  }
}

/** Keeps only the defined entries, so optional fields are absent on the wire rather than null. */
export function defined(entries: Record<string, unknown>): JsonObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out as JsonObject;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
