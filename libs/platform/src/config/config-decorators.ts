import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min, ValidateBy } from 'class-validator';

/**
 * Environment variables arrive as strings. These decorators convert them strictly (a typo
 * such as `NATS_REQUEST_TIMEOUT_MS=5s` must stop the app, not become NaN or `true`) and record
 * what the configuration reference in docs/ says about each variable.
 */
const DOC_KEY = Symbol('config:doc');

export interface VariableDoc {
  description: string;
  /** Never shown (describeConfig), and never set in a ConfigMap (the manifests' test). */
  secret: boolean;
  /**
   * A URL secret for the credentials it may carry (`redis://:<password>@host`): a ConfigMap may
   * set it without them (a server that asks none, or authenticates clients by certificate).
   */
  credentialsInUrl?: true;
}

/**
 * `secret: 'credentials-in-url'` marks a URL that may carry a user, password or token: secret like
 * any other (never shown), though one without credentials may sit in a ConfigMap.
 */
export function Describe(description: string, options: { secret?: boolean | 'credentials-in-url' } = {}): PropertyDecorator {
  return (target, propertyKey) => {
    const docs: Record<string, VariableDoc> = { ...(Reflect.getMetadata(DOC_KEY, target) ?? {}) };
    docs[String(propertyKey)] = {
      description,
      secret: options.secret !== undefined && options.secret !== false,
      ...(options.secret === 'credentials-in-url' ? { credentialsInUrl: true } : {}),
    };
    Reflect.defineMetadata(DOC_KEY, docs, target);
  };
}

/** Whether any of the comma-separated URLs in `value` carries credentials (anything before an `@` in its authority). */
export function urlCarriesCredentials(value: string): boolean {
  return value.split(',').some((url) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url.trim()));
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

/**
 * `@Min` of a duration in milliseconds, whose refusal names the unit and reads the value as
 * seconds (`30 is 0.03 seconds`). Where the floor is above the `@Max` read as seconds
 * (SESSION_TTL_MS, SESSION_EXPIRED_NOTICE_MS), every value written in seconds is refused
 * (`SESSION_TTL_MS=3600` for an hour, 3.6 seconds as milliseconds) instead of running a thousand
 * times too short; elsewhere only those below the floor are (ORDER_LOCK_TTL_MS=60 stops the app,
 * ORDER_LOCK_TTL_MS=1200 does not).
 */
export function MinMilliseconds(floor: number): PropertyDecorator {
  return Min(floor, {
    message: ({ value }) => {
      const read = typeof value === 'number' ? `; ${value} is ${value / 1_000} seconds` : '';
      return `must be at least ${floor} (${inWords(floor)}): the value is in milliseconds${read}`;
    },
  });
}

function inWords(ms: number): string {
  const [amount, unit] =
    ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : ms % 1_000 === 0 ? [ms / 1_000, 'second'] : [ms, 'millisecond'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
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

/** The default of PERSONAL_DATA_RETENTION_DAYS: past the longest chargeback window (540 days for some schemes). */
export const DEFAULT_PERSONAL_DATA_RETENTION_DAYS = 600;
/** The longest PERSONAL_DATA_RETENTION_DAYS: ten years, as WEBHOOK_RETENTION_DAYS. */
const MAX_PERSONAL_DATA_RETENTION_DAYS = 3_650;

/**
 * PERSONAL_DATA_RETENTION_DAYS, the same variable in order-transaction and browser-payment
 * (docs/decisions/payer-personal-data.md, item 2), checked as the other retention settings are:
 * whole days, here 0 (the job off) to ten years. A value that is not a whole number of days
 * (`600d`, `1.5`) or out of range stops the service with a ConfigError naming the variable.
 * `what` says what the service strips, `where` where and how the job runs.
 */
export function PersonalDataRetentionDaysVar(what: string, where: string): PropertyDecorator {
  // In the order TypeScript applies a stack of decorators: the lowest first.
  const decorators = [
    Max(MAX_PERSONAL_DATA_RETENTION_DAYS, { message: `must be at most ${MAX_PERSONAL_DATA_RETENTION_DAYS} days (ten years)` }),
    Min(0, { message: 'must be at least 0 (0 turns the job off)' }),
    IsInt({ message: 'must be a whole number of days' }),
    IntVar(),
    Describe(
      `Days after an order's last operation at which a periodic job strips the payer's personal data (names, e-mails, phones, addresses, device data, notes and custom fields; ` +
        `ids, amounts, codes and the masked card stay) from ${what}, as \`payer-data erase\` does on request (docs/decisions/payer-personal-data.md). ${where} ` +
        'The default outlasts the longest chargeback window (540 days for some schemes); the period is the merchant\'s and the acquirer\'s decision. ' +
        '0 turns the job off: the data is then kept until erased on request.',
    ),
  ];
  return (target, propertyKey) => decorators.forEach((decorate) => decorate(target, propertyKey));
}
