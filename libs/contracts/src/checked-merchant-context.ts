import { plainToInstance } from 'class-transformer';
import { registerDecorator, validateSync } from 'class-validator';
import { MerchantContext } from './merchant-context';

/**
 * Every message of a merchant carries the same merchant context until its settings change, and
 * checking a context in full is most of what checking a message costs (about 75 µs of 100 on
 * the benchmark machine; tools/bench/micro/message-parsing.ts). So a context is checked in full
 * once per distinct content (its JSON text), and the checked instance is kept, deeply frozen,
 * for the next messages that carry the same content. A changed setting is new content, checked
 * in full again; a context that fails its checks is never kept. The newest contents are kept,
 * at most MAX_KEPT of them.
 */
const MAX_KEPT = 512;
const kept = new Map<string, MerchantContext>();
const checked = new WeakSet<object>();

/**
 * The message's merchant context as a checked, frozen MerchantContext; anything that fails the
 * checks is returned as it came, for IsCheckedMerchantContext to refuse.
 */
export function checkedMerchantContext(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return value;
  }
  const content = JSON.stringify(value);
  const known = kept.get(content);
  if (known) {
    return known;
  }
  const context = plainToInstance(MerchantContext, value);
  if (validateSync(context, { forbidUnknownValues: false }).length > 0) {
    return value;
  }
  deepFreeze(context);
  checked.add(context);
  if (kept.size >= MAX_KEPT) {
    kept.delete(kept.keys().next().value as string);
  }
  kept.set(content, context);
  return context;
}

/** Valid only for a context checkedMerchantContext checked (use both on the same property). */
export function IsCheckedMerchantContext(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCheckedMerchantContext',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a valid merchant context' },
      validator: { validate: (value: unknown) => typeof value === 'object' && value !== null && checked.has(value) },
    });
}

function deepFreeze(value: object): void {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) {
      deepFreeze(child);
    }
  }
  Object.freeze(value);
}
