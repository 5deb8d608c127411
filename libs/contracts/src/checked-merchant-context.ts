import { plainToInstance } from 'class-transformer';
import { registerDecorator, validateSync } from 'class-validator';
import { AvsResponseCodeRule, MerchantContext, usableAvsRules } from './merchant-context';

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
  const context = plainToInstance(MerchantContext, withoutUnusableAvsRules(value));
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

/**
 * A profile stored before its AVS rules were checked (a code the acquirer never returns, a second
 * rule for a code) would otherwise fail the checks and have every request of the merchant refused,
 * for rules that never applied: they are left out, which changes no outcome. The edge reports them
 * when it loads the profile; the admin CLI refuses new ones.
 */
function withoutUnusableAvsRules(value: object): object {
  const settings = (value as { settings?: { transactionFiltering?: { avsResponseCodeRules?: unknown } } }).settings;
  const rules = settings?.transactionFiltering?.avsResponseCodeRules;
  if (!Array.isArray(rules)) {
    return value;
  }
  const { usable, unusable } = usableAvsRules(rules as AvsResponseCodeRule[]);
  if (unusable.length === 0) {
    return value;
  }
  return {
    ...value,
    settings: { ...settings, transactionFiltering: { ...settings!.transactionFiltering, avsResponseCodeRules: usable } },
  };
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
