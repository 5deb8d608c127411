import { safeName } from '@gateway/api-fields';

/**
 * What the request body's JSON layer refuses, beyond plain syntax errors: things JSON.parse
 * accepts silently and this API must not.
 * - DUPLICATE_KEY: `{"a":1,"a":2}`; JSON.parse keeps the last, so a proxy or WAF reading the
 *   first would see another request than we process.
 * - FORBIDDEN_KEY: `__proto__`, `constructor`, `prototype`: no meaning in the API, and how
 *   prototype pollution starts.
 * - TOO_DEEP: nesting past the limit (no request field is deeper than 5 levels).
 * - IMPRECISE_NUMBER: a number a double cannot hold exactly (`123456789012345678901234567890`,
 *   `1e400`, `0.1000000000000000000001`, or 17 digits that are not a double's shortest
 *   spelling): validation must see what was sent, not a rounding.
 */
export type JsonProblemKind = 'SYNTAX' | 'DUPLICATE_KEY' | 'FORBIDDEN_KEY' | 'TOO_DEEP' | 'IMPRECISE_NUMBER';

export class JsonProblem extends Error {
  constructor(
    readonly kind: JsonProblemKind,
    /** Where: the field path (`order.item[2].name`), '' for the body itself. */
    readonly path: string,
    /** 0-based character offset into the body. */
    readonly offset: number,
    /** SYNTAX: what was found; IMPRECISE_NUMBER: `30 digits` or `out of range`; else the key or limit. */
    readonly detail: string,
  ) {
    super(`${kind} at ${offset}`);
    this.name = 'JsonProblem';
  }
}

export interface StrictJsonOptions {
  /** Objects and arrays nested deeper than this are refused; the body itself is level 1. */
  maxDepth: number;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const INTEGER_EXACT = /^-?[0-9]{1,15}$/;

/**
 * RFC 8259 JSON, strictly (no comments, no trailing commas, no single quotes, only the four
 * whitespace characters), parsed in one pass that builds the value and refuses the problems
 * above. Bodies are small (a VERIFY is a few hundred bytes), so a JS parser costs
 * microseconds; it replaces JSON.parse rather than running beside it.
 */
export function parseStrictJson(text: string, options: StrictJsonOptions): unknown {
  return new StrictJsonParser(text, options.maxDepth).parseDocument();
}

type PathSegment = string | number;

class StrictJsonParser {
  private at = 0;
  private depth = 0;
  /** The keys and indices leading to the value being parsed, for problem reports only. */
  private readonly path: PathSegment[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parseDocument(): unknown {
    this.skipWhitespace();
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.at < this.text.length) {
      throw this.syntax('unexpected text after the JSON value');
    }
    return value;
  }

  private parseValue(): unknown {
    const char = this.text.charCodeAt(this.at);
    switch (char) {
      case 0x7b /* { */:
        return this.parseObject();
      case 0x5b /* [ */:
        return this.parseArray();
      case 0x22 /* " */:
        return this.parseString();
      case 0x74 /* t */:
        return this.parseLiteral('true', true);
      case 0x66 /* f */:
        return this.parseLiteral('false', false);
      case 0x6e /* n */:
        return this.parseLiteral('null', null);
      default:
        if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
          return this.parseNumber();
        }
        throw this.syntax(Number.isNaN(char) ? 'unexpected end of the body' : 'unexpected character');
    }
  }

  private enter(): void {
    if (++this.depth > this.maxDepth) {
      throw new JsonProblem('TOO_DEEP', this.pathText(), this.at, String(this.maxDepth));
    }
  }

  private parseObject(): Record<string, unknown> {
    this.enter();
    this.at++;
    const object: Record<string, unknown> = {};
    this.skipWhitespace();
    if (this.text.charCodeAt(this.at) === 0x7d /* } */) {
      this.at++;
      this.depth--;
      return object;
    }
    for (;;) {
      if (this.text.charCodeAt(this.at) !== 0x22) {
        throw this.syntax('expected a field name in double quotes');
      }
      const keyOffset = this.at;
      const key = this.parseString();
      this.path.push(key);
      if (FORBIDDEN_KEYS.has(key)) {
        throw new JsonProblem('FORBIDDEN_KEY', this.pathText(), keyOffset, key);
      }
      if (Object.prototype.hasOwnProperty.call(object, key)) {
        throw new JsonProblem('DUPLICATE_KEY', this.pathText(), keyOffset, key);
      }
      this.skipWhitespace();
      this.expect(0x3a /* : */, "expected ':' after a field name");
      this.skipWhitespace();
      object[key] = this.parseValue();
      this.path.pop();
      this.skipWhitespace();
      const next = this.text.charCodeAt(this.at++);
      if (next === 0x7d /* } */) {
        this.depth--;
        return object;
      }
      if (next !== 0x2c /* , */) {
        this.at--;
        throw this.syntax("expected ',' or '}'");
      }
      this.skipWhitespace();
    }
  }

  private parseArray(): unknown[] {
    this.enter();
    this.at++;
    const array: unknown[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.at) === 0x5d /* ] */) {
      this.at++;
      this.depth--;
      return array;
    }
    for (;;) {
      this.path.push(array.length);
      array.push(this.parseValue());
      this.path.pop();
      this.skipWhitespace();
      const next = this.text.charCodeAt(this.at++);
      if (next === 0x5d /* ] */) {
        this.depth--;
        return array;
      }
      if (next !== 0x2c /* , */) {
        this.at--;
        throw this.syntax("expected ',' or ']'");
      }
      this.skipWhitespace();
    }
  }

  private parseString(): string {
    const start = ++this.at;
    const text = this.text;
    // Fast path: most strings hold no escapes.
    for (let i = start; i < text.length; i++) {
      const char = text.charCodeAt(i);
      if (char === 0x22) {
        this.at = i + 1;
        return text.slice(start, i);
      }
      if (char === 0x5c /* \ */ || char < 0x20) {
        this.at = i;
        return this.parseEscapedString(text.slice(start, i));
      }
    }
    this.at = text.length;
    throw this.syntax('unterminated string');
  }

  private parseEscapedString(prefix: string): string {
    const text = this.text;
    const parts: string[] = [prefix];
    let runStart = this.at;
    while (this.at < text.length) {
      const char = text.charCodeAt(this.at);
      if (char === 0x22) {
        parts.push(text.slice(runStart, this.at));
        this.at++;
        return parts.join('');
      }
      if (char < 0x20) {
        throw this.syntax('control character in a string (it must be escaped)');
      }
      if (char !== 0x5c) {
        this.at++;
        continue;
      }
      parts.push(text.slice(runStart, this.at));
      parts.push(this.parseEscape());
      runStart = this.at;
    }
    throw this.syntax('unterminated string');
  }

  private parseEscape(): string {
    const escape = this.text.charCodeAt(this.at + 1);
    this.at += 2;
    switch (escape) {
      case 0x22:
        return '"';
      case 0x5c:
        return '\\';
      case 0x2f:
        return '/';
      case 0x62:
        return '\b';
      case 0x66:
        return '\f';
      case 0x6e:
        return '\n';
      case 0x72:
        return '\r';
      case 0x74:
        return '\t';
      case 0x75 /* u */: {
        const hex = this.text.slice(this.at, this.at + 4);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) {
          this.at -= 2;
          throw this.syntax('invalid \\u escape');
        }
        this.at += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        this.at -= 2;
        throw this.syntax('invalid escape');
    }
  }

  private parseNumber(): number {
    const start = this.at;
    const text = this.text;
    if (text.charCodeAt(this.at) === 0x2d) this.at++;
    if (text.charCodeAt(this.at) === 0x30) {
      this.at++;
    } else if (!this.digits()) {
      throw this.syntax('invalid number');
    }
    if (text.charCodeAt(this.at) === 0x2e /* . */) {
      this.at++;
      if (!this.digits()) throw this.syntax('invalid number');
    }
    const e = text.charCodeAt(this.at);
    if (e === 0x65 || e === 0x45) {
      this.at++;
      const sign = text.charCodeAt(this.at);
      if (sign === 0x2b || sign === 0x2d) this.at++;
      if (!this.digits()) throw this.syntax('invalid number');
    }
    const lexeme = text.slice(start, this.at);
    const value = Number(lexeme);
    if (!INTEGER_EXACT.test(lexeme)) {
      const sent = canonicalDecimal(lexeme);
      if (!Number.isFinite(value) || sent !== canonicalDecimal(String(value))) {
        throw new JsonProblem('IMPRECISE_NUMBER', this.pathText(), start, imprecision(lexeme, value));
      }
    }
    return value;
  }

  /** Consumes one or more digits; false if there were none. */
  private digits(): boolean {
    const start = this.at;
    while (this.at < this.text.length) {
      const char = this.text.charCodeAt(this.at);
      if (char < 0x30 || char > 0x39) break;
      this.at++;
    }
    return this.at > start;
  }

  private parseLiteral<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.at)) {
      throw this.syntax('unexpected character');
    }
    this.at += word.length;
    return value;
  }

  private expect(char: number, what: string): void {
    if (this.text.charCodeAt(this.at) !== char) {
      throw this.syntax(what);
    }
    this.at++;
  }

  private skipWhitespace(): void {
    const text = this.text;
    while (this.at < text.length) {
      const char = text.charCodeAt(this.at);
      if (char !== 0x20 && char !== 0x0a && char !== 0x0d && char !== 0x09) return;
      this.at++;
    }
  }

  private syntax(what: string): JsonProblem {
    const detail = this.at >= this.text.length && what === 'unexpected character' ? 'unexpected end of the body' : what;
    return new JsonProblem('SYNTAX', this.pathText(), Math.min(this.at, this.text.length), detail);
  }

  /** `order.item[2].name`, names made safe to show (controls replaced, card-like digits masked). */
  private pathText(): string {
    let out = '';
    for (const segment of this.path) {
      out += typeof segment === 'number' ? `[${segment}]` : `${out === '' ? '' : '.'}${safeName(segment)}`;
    }
    return out;
  }
}

/**
 * A decimal lexeme as `<sign><digits>e<exponent>` with no leading or trailing zeros, so two
 * spellings of one value compare equal (`1.50`, `15e-1`; `0`, `-0.0`). Also reads the
 * `1.2345678901234568e+29` form String(number) writes.
 */
export function canonicalDecimal(lexeme: string): string {
  const match = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(lexeme);
  if (!match) {
    return 'NaN';
  }
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  // Index loops, not /0*$/: that regex is tried from every offset of a zero run followed by a
  // non-zero digit, quadratic in the run, and a body's one number can be 64 KB of digits.
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++;
  if (first === digits.length) {
    return '0';
  }
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  const scale = Number(exponent) - fraction.length + (digits.length - end);
  return `${sign}${digits.slice(first, end)}e${scale}`;
}

/** `30 digits` (as written, leading zeros aside), or `out of range` past a double's exponents. */
function imprecision(lexeme: string, value: number): string {
  if (!Number.isFinite(value) || (value === 0 && canonicalDecimal(lexeme) !== '0')) {
    return 'out of range';
  }
  const mantissa = lexeme.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '');
  return `${mantissa.length} digits`;
}
