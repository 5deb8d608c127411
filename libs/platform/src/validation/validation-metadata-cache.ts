import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type Storage = ReturnType<typeof getMetadataStorage>;
type TargetLookup = Storage['getTargetValidationMetadatas'];

const INSTALLED = Symbol.for('gateway.validationMetadataCache');

/**
 * class-validator works out a class's validation rules again for every object it validates,
 * nested ones included: it scans every registered class for the target's ancestors
 * (`instanceof` on each) and regroups the rules by property. With the hundreds of request and
 * message classes this workspace registers, that lookup was the single largest cost of
 * validating a message (docs/performance.md). The rules only change while decorators run (at
 * module load), so this memoises both steps per class and option set, and forgets everything
 * whenever a rule or constraint is registered. What is validated, and how, does not change.
 *
 * Idempotent: the storage is global to the process (class-validator keeps it on globalThis).
 */
export function installValidationMetadataCache(storage: Storage = getMetadataStorage()): void {
  const patched = storage as Storage & { [INSTALLED]?: true };
  if (patched[INSTALLED]) {
    return;
  }
  patched[INSTALLED] = true;
  let lookups = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let groupings = new WeakMap<ValidationMetadata[], { [propertyName: string]: ValidationMetadata[] }>();
  const forget = () => {
    lookups = new Map();
    groupings = new WeakMap();
  };

  const lookup: TargetLookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups ? JSON.stringify(groups) : ''}`;
    let byOptions = lookups.get(targetConstructor);
    if (!byOptions) {
      lookups.set(targetConstructor, (byOptions = new Map()));
    }
    let metadatas = byOptions.get(key);
    if (!metadatas) {
      metadatas = lookup(targetConstructor, targetSchema, always, strictGroups, groups);
      byOptions.set(key, metadatas);
    }
    return metadatas;
  };

  const group = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groupings.get(metadatas);
    if (!grouped) {
      grouped = group(metadatas);
      groupings.set(metadatas, grouped);
    }
    return grouped;
  };

  for (const method of ['addValidationMetadata', 'addConstraintMetadata', 'addValidationSchema'] as const) {
    const register = storage[method].bind(storage) as (metadata: unknown) => void;
    (storage as unknown as Record<typeof method, (metadata: unknown) => void>)[method] = (metadata) => {
      forget();
      register(metadata);
    };
  }
}
