import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';

/**
 * Environment variables arrive as strings. These decorators convert them strictly (a typo
 * such as `NATS_REQUEST_TIMEOUT_MS=5s` must stop the app, not become NaN or `true`) and record
 * what the configuration reference in docs/ says about each variable.
 */
const DOC_KEY = Symbol('config:doc');

export interface VariableDoc {
  description: string;
  secret: boolean;
}

export function Describe(description: string, options: { secret?: boolean } = {}): PropertyDecorator {
  return (target, propertyKey) => {
    const docs: Record<string, VariableDoc> = { ...(Reflect.getMetadata(DOC_KEY, target) ?? {}) };
    docs[String(propertyKey)] = { description, secret: options.secret ?? false };
    Reflect.defineMetadata(DOC_KEY, docs, target);
  };
}

/** Every documented variable of a config class, including inherited ones. */
export function describeVariables(configClass: new () => object): Record<string, VariableDoc> {
  return { ...(Reflect.getMetadata(DOC_KEY, configClass.prototype) ?? {}) };
}

export function secretVariables(configClass: new () => object): Set<string> {
  return new Set(
    Object.entries(describeVariables(configClass))
      .filter(([, doc]) => doc.secret)
      .map(([name]) => name),
  );
}

/** An integer; anything else is left as a string so `@IsInt` reports it. */
export function IntVar(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value));
}

/** `true` or `false` only; `1`, `yes` and friends are rejected rather than guessed. */
export function BoolVar(): PropertyDecorator {
  return Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value));
}

/** A rule between one integer variable and others of its configuration (`C`), checked at start. */
export interface VariableRelation<C> {
  /** Configurations the rule does not concern (a mode that does not use the variable). */
  appliesTo?: (config: C) => boolean;
  /** The other variables the rule reads: while one of them is invalid, that one's own error is reported, not this rule. */
  reads: (config: C) => unknown[];
  holds: (value: number, config: C) => boolean;
  message: (config: C) => string;
}

/**
 * The decorator of a VariableRelation: a variable that is valid alone but breaks something with
 * the others (a lock's lease shorter than the waits under it, a grace shorter than the work it
 * must let finish) stops the app with the rule's message on that variable.
 */
export function RelatedVariable<C extends object>(name: string, relation: VariableRelation<C>): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value, args) => {
        const config = args!.object as C;
        if (relation.appliesTo?.(config) === false) {
          return true;
        }
        if (relation.reads(config).some((read) => typeof read !== 'number' || Number.isNaN(read))) {
          return true;
        }
        return typeof value === 'number' && relation.holds(value, config);
      },
      defaultMessage: (args) => relation.message(args!.object as C),
    },
  });
}
