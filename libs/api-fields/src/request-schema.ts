import { FieldProblem } from './field-problem';
import { FieldType } from './field-type';

/**
 * What the field decorators record about a request class, and the compiled form the
 * validation engine walks. Metadata is collected once, when the classes are defined, and
 * compiled once per class on first use: nothing about a class is rebuilt per request.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RequestClass<T = any> = new () => T;

export interface FieldOptions {
  /**
   * REQUIRED whenever the object holding the field is present: always for a top-level field,
   * "REQUIRED within group" for a field of an optional group.
   */
  required?: boolean;
  /** Never echoed in an explanation: card number, security code, track data, p2pe payload. */
  sensitive?: boolean;
  /** How explanations name the field ("Month"); its JSON name by default. */
  label?: string;
}

interface BaseMeta {
  readonly name: string;
  readonly required: boolean;
  /** The decorator that declared the field, for the field-coverage report. */
  readonly decorator: string;
}

export interface ValueFieldMeta extends BaseMeta {
  readonly kind: 'value';
  readonly type: FieldType;
  readonly sensitive: boolean;
  readonly label?: string;
}

export interface GroupFieldMeta extends BaseMeta {
  readonly kind: 'group' | 'array';
  readonly target: () => RequestClass;
}

export interface CustomFieldsMeta extends BaseMeta {
  readonly kind: 'custom';
  readonly maxFields: number;
  readonly value: FieldType;
}

export type FieldMeta = ValueFieldMeta | GroupFieldMeta | CustomFieldsMeta;

/**
 * A stateless rule across fields, run on the typed request once every field is valid: the
 * first problem it finds, or null.
 */
export type CrossFieldRule<T> = (request: T) => FieldProblem | null;

const declaredFields = new Map<object, FieldMeta[]>();
const declaredRules = new Map<object, CrossFieldRule<never>[]>();

export function declareField(prototype: object, meta: FieldMeta): void {
  const fields = declaredFields.get(prototype) ?? [];
  if (fields.some((f) => f.name === meta.name)) {
    throw new Error(`${prototype.constructor.name}.${meta.name} is declared twice`);
  }
  fields.push(meta);
  declaredFields.set(prototype, fields);
}

/** Class decorator: stateless cross-field rules, run in the order given. */
export function CrossFieldRules<T>(...rules: CrossFieldRule<T>[]) {
  return (target: RequestClass<T>): void => {
    declaredRules.set(target, rules as CrossFieldRule<never>[]);
  };
}

export interface CompiledField {
  readonly meta: FieldMeta;
  readonly name: string;
  /** The nested schema of a group or array field (compiled on first use: schemas may recurse). */
  schema(): CompiledSchema;
}

export interface CompiledSchema {
  readonly target: RequestClass;
  /** In alphabetical order of name: the order problems are looked for. */
  readonly fields: readonly CompiledField[];
  readonly byName: ReadonlyMap<string, CompiledField>;
  readonly rules: readonly CrossFieldRule<never>[];
}

const compiled = new WeakMap<RequestClass, CompiledSchema>();

export function compileSchema(target: RequestClass): CompiledSchema {
  const cached = compiled.get(target);
  if (cached) {
    return cached;
  }
  const metas = collectFields(target);
  if (metas.length === 0) {
    throw new Error(`${target.name} declares no request fields`);
  }
  const fields = metas
    .slice()
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((meta): CompiledField => {
      let nested: CompiledSchema | undefined;
      return {
        meta,
        name: meta.name,
        schema: () => {
          if (meta.kind !== 'group' && meta.kind !== 'array') {
            throw new Error(`${target.name}.${meta.name} is not a group`);
          }
          nested ??= compileSchema(meta.target());
          return nested;
        },
      };
    });
  const schema: CompiledSchema = {
    target,
    fields,
    byName: new Map(fields.map((f) => [f.name, f])),
    rules: declaredRules.get(target) ?? [],
  };
  compiled.set(target, schema);
  return schema;
}

/** The class's own fields and those it inherits (a subclass may redeclare one). */
function collectFields(target: RequestClass): FieldMeta[] {
  const byName = new Map<string, FieldMeta>();
  const chain: object[] = [];
  for (let proto = target.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    chain.unshift(proto);
  }
  for (const proto of chain) {
    for (const meta of declaredFields.get(proto) ?? []) {
      byName.set(meta.name, meta);
    }
  }
  return [...byName.values()];
}

export interface FieldDescription {
  /** Full request path: `order.item[n].unitPrice`, `order.custom.<name>`. */
  path: string;
  kind: FieldMeta['kind'];
  /** Canonical notation of the type (`group`, `group[]` and `custom` for the structural kinds). */
  notation: string;
  required: boolean;
  /** The path of the group the field is REQUIRED within, for REQUIRED fields of nested groups. */
  within?: string;
  sensitive: boolean;
  decorator: string;
  type?: FieldType;
}

/** Every field a request class accepts, depth first in alphabetical order. */
export function describeRequest(target: RequestClass, prefix = ''): FieldDescription[] {
  const out: FieldDescription[] = [];
  const within = prefix ? prefix.replace(/\.$/, '') : undefined;
  for (const field of compileSchema(target).fields) {
    const meta = field.meta;
    const path = `${prefix}${meta.name}`;
    const common = { required: meta.required, within: meta.required ? within : undefined, decorator: meta.decorator };
    switch (meta.kind) {
      case 'value':
        out.push({ path, kind: 'value', notation: meta.type.notation, sensitive: meta.sensitive, type: meta.type, ...common });
        break;
      case 'group':
        out.push({ path, kind: 'group', notation: 'group', sensitive: false, ...common });
        out.push(...describeRequest(meta.target(), `${path}.`));
        break;
      case 'array':
        out.push({ path: `${path}[n]`, kind: 'array', notation: 'group[]', sensitive: false, ...common });
        out.push(...describeRequest(meta.target(), `${path}[n].`));
        break;
      case 'custom':
        out.push({ path: `${path}.<name>`, kind: 'custom', notation: meta.value.notation, sensitive: false, type: meta.value, ...common });
        break;
    }
  }
  return out;
}
