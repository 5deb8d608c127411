import { Exclude, plainToInstance } from 'class-transformer';

type Adopt = (value: unknown) => unknown;

interface VerbatimProperty {
  readonly name: string;
  readonly adopt: Adopt;
}

/** By the class that declares them (a constructor). */
const verbatimProperties = new Map<object, VerbatimProperty[]>();

/**
 * A message property whose value is kept exactly as it arrived, for its own checks to judge:
 * a request body (checked again, field by field, by the operation's request class), a response
 * body the ledger stores, a merchant context (checked once per content). class-transformer
 * would otherwise copy such a value key by key, with metadata lookups for every key, before
 * anything looks at it: about half of what checking the ledger's record message cost
 * (docs/decisions/verbatim-message-fields.md). `adopt` maps the value as it arrived to the
 * one the message keeps (the default keeps it). The property's validators still run on it.
 *
 * Only toMessage (and parseMessage, which uses it) fills these properties: a bare
 * plainToInstance leaves them out.
 */
export function Verbatim(adopt: Adopt = (value) => value): PropertyDecorator {
  return (target, propertyName) => {
    Exclude({ toClassOnly: true })(target, propertyName);
    const owner = target.constructor;
    verbatimProperties.set(owner, [...(verbatimProperties.get(owner) ?? []), { name: propertyName as string, adopt }]);
  };
}

/**
 * A message class instance from its plain (JSON) form: class-transformer for its fields and
 * nested messages, the Verbatim properties as they arrived.
 */
export function toMessage<T extends object>(messageClass: new () => T, plain: unknown): T {
  const message = plainToInstance(messageClass, plain);
  fillVerbatim(message, plain);
  return message;
}

function fillVerbatim(instance: unknown, plain: unknown): void {
  if (!isRecord(instance) || !isRecord(plain)) {
    return;
  }
  if (Array.isArray(instance)) {
    if (Array.isArray(plain)) {
      instance.forEach((element, index) => fillVerbatim(element, plain[index]));
    }
    return;
  }
  if (Object.getPrototypeOf(instance) === Object.prototype) {
    // A plain object class-transformer copied: no properties of a message class inside.
    return;
  }
  for (const [name, value] of Object.entries(instance)) {
    fillVerbatim(value, plain[name]);
  }
  for (const property of propertiesOf(instance.constructor)) {
    if (Object.hasOwn(plain, property.name)) {
      instance[property.name] = property.adopt(plain[property.name]);
    }
  }
}

/** The class's Verbatim properties and those of the classes it extends. */
function propertiesOf(type: object): VerbatimProperty[] {
  const properties: VerbatimProperty[] = [];
  for (let current: unknown = type; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    properties.push(...(verbatimProperties.get(current) ?? []));
  }
  return properties;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
