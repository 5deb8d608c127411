/**
 * Extracts every request field of the five operations from the spec's request tables and
 * field lists (docs/spec/gateway-api.md), with the type and requirement the spec gives it.
 * The spec is prose for people, so a few of its phrasings are read by rules written here;
 * each rule names the sentence it reads.
 */
export type Operation = 'TOKEN' | 'REFUND' | 'INITIATE_BROWSER_PAYMENT' | 'CONFIRM_BROWSER_PAYMENT' | 'VERIFY';
export const OPERATIONS: Operation[] = ['TOKEN', 'REFUND', 'INITIATE_BROWSER_PAYMENT', 'CONFIRM_BROWSER_PAYMENT', 'VERIFY'];

export type Requirement = 'REQUIRED' | 'OPTIONAL';

export interface SpecField {
  operation: Operation;
  /** `order.item[n].unitPrice`, `order.custom.<name>`. */
  path: string;
  /** The spec's type text, as written. */
  specType: string;
  /** The type in the canonical notation the field types use (`String(1-40)`, `Enum(A|B)`). */
  notation: string;
  /** REQUIRED (or REQUIRED within its group) or OPTIONAL. */
  requirement: Requirement;
  /** Where the spec says it: the section heading. */
  section: string;
}

interface RawField {
  path: string;
  specType: string;
  requirement: Requirement;
}

/** The spec split into its `### ` sections. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = markdown.split(/^### /m).slice(1);
  for (const part of parts) {
    const newline = part.indexOf('\n');
    out.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return out;
}

function section(all: Map<string, string>, heading: string): string {
  for (const [name, body] of all) {
    if (name.startsWith(heading)) return body.split(/^## /m)[0];
  }
  throw new Error(`The spec has no section "${heading}"`);
}

/** Rows of the first markdown table in `text`, as cells, header and separator dropped. */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

function requirementOf(text: string): Requirement {
  return /^REQUIRED/.test(text.trim()) ? 'REQUIRED' : 'OPTIONAL';
}

/** "customer.firstName, lastName" → both full paths; "a.b.*, a.c.*, a.d" → each as written. */
function expandNames(cell: string): string[] {
  const names = cell.split(/,\s*/).map((n) => n.trim()).filter(Boolean);
  const first = names[0];
  const prefix = first.includes('.') ? first.slice(0, first.lastIndexOf('.') + 1) : '';
  return names.map((name, i) => (i === 0 || name.includes('.') ? name : `${prefix}${name}`));
}

/** Removes parenthetical notes (" (default SAME ...)"), keeping type brackets like String(1-50). */
function withoutNotes(text: string): string {
  let out = text;
  for (let previous = ''; previous !== out; ) {
    previous = out;
    out = out.replace(/ \([^()]*\)/g, '');
  }
  return out;
}

interface Groups {
  address: Map<string, string>;
  lineItem: RawField[];
  tax: RawField[];
  identificationTypes: string[];
}

function readGroups(all: Map<string, string>, markdown: string): Groups {
  const address = new Map(tableRows(section(all, 'Address group')).map(([name, type]) => [name, type]));
  const lineItem: RawField[] = [];
  for (const [names, type, req] of tableRows(section(all, 'Line item group'))) {
    for (const name of expandNames(names)) lineItem.push({ path: name, specType: type, requirement: requirementOf(req) });
  }
  // "- amount: DecIn, OPT. type: String(1-50), OPT."
  const tax: RawField[] = [];
  for (const match of section(all, 'Tax breakdown').matchAll(/(\w+): ([^,]+), (OPT|REQUIRED)/g)) {
    tax.push({ path: match[1], specType: match[2], requirement: requirementOf(match[3]) });
  }
  const types = /Identification types \(recipient and customer\): ([^.]+)\./.exec(markdown);
  if (!types) throw new Error('The spec lists no identification types');
  const identificationTypes = withoutNotes(types[1]).split(/,\s*/).map((t) => t.trim());
  return { address, lineItem, tax, identificationTypes };
}

/**
 * The Address group's fields at `prefix`. "stateProvinceCode: on billing (token, verify) and
 * verify shipping"; "company: not in token shipping"; "without stateProvinceCode" where a
 * table says so.
 */
function addressFields(groups: Groups, operation: Operation, prefix: string, type: string): RawField[] {
  const withCode =
    / with stateProvinceCode/.test(type) ||
    (!/without stateProvinceCode/.test(type) &&
      ((operation === 'TOKEN' && prefix.startsWith('billing.')) || (operation === 'VERIFY' && /^(billing|shipping)\./.test(prefix))));
  return [...groups.address]
    .filter(([name]) => name !== 'stateProvinceCode' || withCode)
    .filter(([name]) => name !== 'company' || !(operation === 'TOKEN' && prefix.startsWith('shipping.')))
    .map(([name, fieldType]) => ({ path: `${prefix}${name}`, specType: fieldType, requirement: 'OPTIONAL' as const }));
}

/** A table's rows as fields, groups (`x.*`, `x[n].*`) expanded and "as refund" types resolved. */
function tableFields(rows: string[][], operation: Operation, groups: Groups, refund: RawField[]): RawField[] {
  const out: RawField[] = [];
  for (const [cell, type, req, notes] of rows) {
    const requirement = requirementOf(req);
    const slash = / \/ /.test(cell) ? cell.split(' / ') : null;
    if (slash) {
      // "sourceOfFunds.provided.card.expiry.month / year" with "Digits 1-12 / Digits(2-2)".
      const types = type.split(' / ');
      const base = slash[0].slice(0, slash[0].lastIndexOf('.') + 1);
      out.push({ path: slash[0], specType: types[0], requirement }, { path: `${base}${slash[1]}`, specType: types[1], requirement });
      continue;
    }
    for (const name of expandNames(cell)) {
      if (name.endsWith('[n].*')) {
        const prefix = name.slice(0, -1);
        const members = /Line item/.test(type) ? groups.lineItem : /Tax breakdown/.test(type) ? groups.tax : [];
        if (members.length === 0) throw new Error(`Unknown group type "${type}" for ${name}`);
        out.push({ path: name.slice(0, -2), specType: 'group[]', requirement });
        out.push(...members.map((m) => ({ ...m, path: `${prefix}${m.path}` })));
      } else if (name.endsWith('.*')) {
        const prefix = name.slice(0, -1);
        if (/^as refund/.test(type)) {
          out.push(...refund.filter((f) => f.path.startsWith(prefix)));
        } else {
          out.push(...addressFields(groups, operation, prefix, type));
        }
      } else if (/^as refund/.test(type)) {
        const found = refund.find((f) => f.path === name);
        if (!found) throw new Error(`"${name}" is typed "as refund" but refund has no such field`);
        out.push({ ...found, requirement });
      } else if (/^as Address group/.test(type)) {
        const leaf = name.slice(name.lastIndexOf('.') + 1);
        out.push({ path: name, specType: groups.address.get(leaf)!, requirement });
      } else if (/^as postcodeZip/.test(type)) {
        out.push({ path: name, specType: groups.address.get('postcodeZip')!, requirement });
      } else {
        // A form the notes column gives (token's device.ipAddress: nnn.nnn.nnn.nnn) is part of the type.
        const form = notes !== undefined && /^nnn\.nnn\.nnn\.nnn$/.test(notes) ? ` ${notes}` : '';
        out.push({ path: name, specType: `${type}${form}`, requirement });
      }
    }
  }
  return out;
}

/** "apiOperation = REFUND (fixed)." */
function apiOperationField(text: string): RawField {
  const match = /apiOperation = ([A-Z_]+) \(fixed\)/.exec(text);
  if (!match) throw new Error('No fixed apiOperation in section');
  return { path: 'apiOperation', specType: `enum ${match[1]}`, requirement: 'REQUIRED' };
}

/** The shared request fields; partnerSolutionId is "(not on token)". */
function sharedFields(all: Map<string, string>, operation: Operation): RawField[] {
  return tableRows(section(all, 'Shared request fields'))
    .filter(([, , , notes]) => !(operation === 'TOKEN' && /not on token/.test(notes)))
    .map(([name, type, req]) => ({ path: name, specType: type, requirement: req === 'OPT' ? 'OPTIONAL' : requirementOf(req) }));
}

/**
 * The verify section is prose: bold group names, bullets, and lists of "name Type" separated
 * by ';' (or ',' inside a group's inline list). Read it segment by segment.
 */
function verifyFields(text: string, groups: Groups): RawField[] {
  const out: RawField[] = [];
  const add = (path: string, specType: string, requirement: Requirement = 'OPTIONAL') => out.push({ path, specType, requirement });
  // Sentences that are not "name Type" lists.
  let body = withoutNotes(text.replace(/\(types above\)/g, 'enum of the identification types'))
    .replace('apiOperation = VERIFY. sourceOfFunds is REQUIRED.', '')
    .replace(/customer\.middleName is a String; its bounds and the remaining[^\n]*/, '')
    .replace('customer.middleName is present, its bounds follow below.', 'middleName String.');
  add('apiOperation', 'enum VERIFY', 'REQUIRED');
  add('sourceOfFunds', 'group', 'REQUIRED');

  // "transactionFiltering.avsResponseCodeRules[n] with action REQUIRED enum ... and avsResponseCode REQUIRED enum ...;"
  body = body.replace(
    /transactionFiltering\.avsResponseCodeRules\[n\] with action REQUIRED (enum [^;]+?) and avsResponseCode REQUIRED (enum [^;]+);/,
    (_m, action: string, code: string) => {
      add('order.transactionFiltering.avsResponseCodeRules[n]', 'group[]');
      add('order.transactionFiltering.avsResponseCodeRules[n].action', action, 'REQUIRED');
      add('order.transactionFiltering.avsResponseCodeRules[n].avsResponseCode', code, 'REQUIRED');
      return '';
    },
  );
  // "address Address group plus address.source enum A, B and address.sameAsBilling enum C, D, E;"
  body = body.replace(/address Address group plus address\.source (enum [^;]+?) and address\.sameAsBilling (enum [^;]+);/, (_m, source: string, same: string) => {
    out.push(...addressFields(groups, 'VERIFY', 'shipping.address.', 'Address group'));
    add('shipping.address.source', source);
    add('shipping.address.sameAsBilling', same);
    return '';
  });
  // "expiry.month Digits 1-12 and expiry.year Digits(2-2), REQUIRED within expiry."
  body = body.replace(/expiry\.month (Digits 1-12) and expiry\.year (Digits\(2-2\)), REQUIRED within expiry\./, (_m, month: string, year: string) => {
    add('sourceOfFunds.provided.card.expiry', 'group');
    add('sourceOfFunds.provided.card.expiry.month', month, 'REQUIRED');
    add('sourceOfFunds.provided.card.expiry.year', year, 'REQUIRED');
    return '';
  });
  // "mobilePhone and phone as Tel"
  body = body.replace('lastName String(1-50), mobilePhone and phone as Tel', 'lastName String(1-50); contact.mobilePhone Tel; contact.phone Tel');

  let prefix = '';
  for (const rawLine of body.split('\n')) {
    let line = rawLine.trim();
    if (!line) continue;
    const bold = /^\*\*([^*]+\*?)\*\*(.*)$/.exec(line);
    if (bold) {
      // "**billing.address.*** Address group with stateProvinceCode; **customer**: email, ..."
      const inline = line.split(/;\s*(?=\*\*)/);
      if (inline.length > 1) {
        for (const part of inline) verifyInline(part, groups, out);
        prefix = '';
        continue;
      }
      prefix = bold[1].replace(/\.\*$/, '');
      const rest = bold[2].replace(/^[,:]?\s*(all OPT[^:]*)?:?\s*/, '');
      if (/^Address group/.test(rest)) {
        out.push(...addressFields(groups, 'VERIFY', `${prefix}.`, rest));
      } else {
        for (const segment of rest.split(/;\s*/)) verifySegment(`${prefix}.`, segment, groups, out);
      }
      continue;
    }
    if (line.startsWith('- ')) {
      line = line.slice(2);
      // "- recipient.address: city String(1-100), country Upper3, ..." and "- retailer: ..."
      const listed = /^([\w.[\]]+): (.*)$/.exec(line);
      if (listed && /^\w+ /.test(listed[2]) && !/^(enum|Boolean|String|Int|Date)/.test(listed[2])) {
        if (/^Address group/.test(listed[2])) {
          out.push(...addressFields(groups, 'VERIFY', `${prefix}.${listed[1]}.`, listed[2]));
        } else {
          verifyList(`${prefix}.${listed[1]}.`, listed[2], groups, out);
        }
        continue;
      }
      const segments = line.split(/;\s*/);
      const first = /^([\w[\]]+\.)[\w[\]]+[\s:]/.exec(segments[0]);
      for (const [i, segment] of segments.entries()) {
        const inherited = i > 0 && first && /^\w+[\s:]/.test(segment) ? first[1] : '';
        verifySegment(`${prefix}.${inherited}`, segment, groups, out);
      }
    }
  }
  return out;
}

/** One "**name** rest" piece of a line holding several bold groups. */
function verifyInline(part: string, groups: Groups, out: RawField[]): void {
  const match = /^\*\*([^*]+\*?)\*\*:?\s*(.*)$/.exec(part.trim());
  if (!match) return;
  const name = match[1].replace(/\.\*$/, '');
  if (/^Address group/.test(match[2])) {
    out.push(...addressFields(groups, 'VERIFY', `${name}.`, match[2]));
  } else {
    for (const list of match[2].replace(/\.$/, '').split(/;\s*/)) verifyList(`${name}.`, list, groups, out);
  }
}

/** "city String(1-100), country Upper3, street, street2 String(1-100)": a name without a type takes the next one's. */
function verifyList(prefix: string, list: string, groups: Groups, out: RawField[]): void {
  const pending: string[] = [];
  for (const item of list.replace(/\.$/, '').split(/,\s*/)) {
    const match = /^([\w.[\]]+)(?:\s+(.+))?$/.exec(item.trim());
    if (!match) throw new Error(`Cannot read verify list item "${item}"`);
    if (!match[2]) {
      pending.push(match[1]);
      continue;
    }
    for (const name of [...pending, match[1]]) out.push({ path: `${prefix}${name}`, specType: typeText(match[2], groups), requirement: 'OPTIONAL' });
    pending.length = 0;
  }
  if (pending.length) throw new Error(`Verify list "${list}" ends without a type`);
}

/** "purpose: enum A, B", "id String(1-100): note", "store.id, store.name String(1-255)", "origin.postcodeZip". */
function verifySegment(prefix: string, segment: string, groups: Groups, out: RawField[]): void {
  const text = segment.trim().replace(/\.$/, '');
  if (!text) return;
  const colon = /^([\w.[\]]+(?:,\s*[\w.[\]]+)*): (.*)$/.exec(text);
  const match = colon ?? /^([\w.[\]]+(?:,\s*[\w.[\]]+)*)\s+(.+?)(?::.*)?$/.exec(text);
  if (!match) {
    if (/^[\w.]+$/.test(text)) {
      // "origin.postcodeZip": the Address group's postcodeZip type.
      out.push({ path: `${prefix}${text}`, specType: groups.address.get('postcodeZip')!, requirement: 'OPTIONAL' });
      return;
    }
    throw new Error(`Cannot read verify segment "${segment}"`);
  }
  if (!TYPE_START.test(match[2].trim())) {
    // Prose after a field ("; must be provided for recurring agreements"), not a field.
    return;
  }
  const type = typeText(match[2].replace(/,\s*no sensitive data$/, '').replace(/, in the order currency$/, '').replace(/, default \w+$/, ''), groups);
  const names = match[1].split(/,\s*/);
  const namePrefix = names[0].includes('.') ? names[0].slice(0, names[0].lastIndexOf('.') + 1) : '';
  for (const [i, name] of names.entries()) {
    const full = i === 0 || name.includes('.') ? name : `${namePrefix}${name}`;
    out.push({ path: `${prefix}${full}`, specType: type, requirement: 'OPTIONAL' });
  }
}

const TYPE_START =
  /^(enum|enumeration|String|Int|Date|DateTime|DecIn|Digits|Alnum|ASCII|Base64|Boolean|Upper3|Email|Tel|Url|JSON text|chars|single letter|Hex)\b/;

function typeText(text: string, groups: Groups): string {
  const trimmed = text.trim();
  if (/identification types|types above/.test(trimmed)) return `enum ${groups.identificationTypes.join(', ')}`;
  return trimmed;
}

/** The confirm paragraph: "All other fields OPTIONAL: a, b, c, plus shared fields. Same types as in initiate." */
function confirmFields(text: string, initiate: RawField[]): RawField[] {
  const match = /All other fields OPTIONAL: (.*?), plus shared fields\. Same types as in initiate\./.exec(text);
  if (!match) throw new Error('The confirm section no longer reads as expected');
  const out: RawField[] = [apiOperationField(text)];
  for (const name of match[1].split(/,\s*/)) {
    const path = name.replace(/ \([^)]*\)$/, '');
    if (path.endsWith('[n].*')) {
      const prefix = path.slice(0, -1);
      out.push(...initiate.filter((f) => f.path === path.slice(0, -2) || f.path.startsWith(prefix)));
    } else {
      const found = initiate.find((f) => f.path === path);
      if (!found) throw new Error(`Confirm names ${path}, which initiate does not have`);
      out.push({ ...found, requirement: 'OPTIONAL' });
    }
  }
  return out;
}

export function extractRequestFields(markdown: string): SpecField[] {
  const all = sections(markdown);
  const groups = readGroups(all, markdown);
  const fields: SpecField[] = [];
  const push = (operation: Operation, heading: string, raw: RawField[]) => {
    for (const f of raw) fields.push({ operation, ...f, notation: canonicalType(f.path, f.specType), section: heading });
  };

  // Shared fields first: where an operation's prose lists one again (verify's customer.email), the shared table's type stands.
  for (const operation of OPERATIONS) {
    push(operation, 'Shared request fields (all operations)', sharedFields(all, operation));
  }
  const refundText = section(all, 'Refund: request fields');
  const refund = tableFields(tableRows(refundText), 'REFUND', groups, []);

  const tokenText = section(all, 'Create or update token: request fields');
  push('TOKEN', 'Create or update token: request fields', tableFields(tableRows(tokenText), 'TOKEN', groups, refund));
  push('REFUND', 'Refund: request fields', [apiOperationField(refundText), ...refund]);

  const initiateText = section(all, 'Initiate browser payment: request fields');
  const initiate = [apiOperationField(initiateText), ...tableFields(tableRows(initiateText), 'INITIATE_BROWSER_PAYMENT', groups, refund)];
  push('INITIATE_BROWSER_PAYMENT', 'Initiate browser payment: request fields', initiate);
  push('CONFIRM_BROWSER_PAYMENT', 'Confirm browser payment: request fields', confirmFields(section(all, 'Confirm browser payment: request fields'), initiate));
  push('VERIFY', 'Verify: request fields (as visible)', verifyFields(section(all, 'Verify: request fields'), groups));

  return dedupe(fields);
}

/** A field listed twice for one operation (a shared field also in a table) counts once. */
function dedupe(fields: SpecField[]): SpecField[] {
  const seen = new Map<string, SpecField>();
  for (const field of fields) {
    const key = `${field.operation} ${field.path}`;
    if (!seen.has(key)) seen.set(key, field);
  }
  return [...seen.values()];
}

/** The spec's type text in the notation of libs/api-fields (FieldType.notation). */
export function canonicalType(path: string, text: string): string {
  const t = withoutNotes(text.trim());
  if (/(^|\.)device\.ipAddress$/.test(path) && /nnn\.nnn\.nnn\.nnn$/.test(t)) return 'IPv4';
  if (t === 'group' || t === 'group[]') return t;
  let m: RegExpExecArray | null;
  if ((m = /^(String|ASCII|Alnum|Hex|Digits)\((\d+)-(\d+)\)/.exec(t))) return `${m[1]}(${m[2]}-${m[3]})`;
  if ((m = /^(String|ASCII|Alnum|Hex|Digits)\((\d+)\)/.exec(t))) return `${m[1]}(${m[2]}-${m[2]})`;
  if ((m = /^Digits,? (?:value )?(\d+) (?:to|-) (\d+)/.exec(t)) || (m = /^Digits,? (?:value )?(\d+)-(\d+)/.exec(t))) return `Digits(value ${m[1]}-${m[2]})`;
  if (/^DecIn/.test(t)) return /may be negative/.test(text) ? 'DecIn(signed)' : 'DecIn';
  if (/^Upper3/.test(t)) return 'Upper3';
  if (/^DateTime/.test(t)) return 'DateTime';
  if (/^Date/.test(t)) return 'Date';
  if (/^(Email|Tel|Url|Boolean)\b/.test(t)) return t.split(/\W/)[0];
  if ((m = /^Int (\d+)-(\d+)/.exec(t))) return `Int(${m[1]}-${m[2]})`;
  if ((m = /^Base64 of length (\d+) or (\d+)/.exec(t))) return `Base64(${m[1]}|${m[2]})`;
  if ((m = /^Base64\((\d+)-(\d+)\)/.exec(t))) return `Base64(${m[1]}-${m[2]})`;
  if (/^chars 0-9 a-z A-Z ' ' '-', 1-10/.test(t)) return 'PostcodeZip';
  if ((m = /^chars 0-9 a-z A-Z '\.', (\d+)-(\d+)/.exec(t))) return `Chars(0-9a-zA-Z.)(${m[1]}-${m[2]})`;
  if (/^single letter a-z A-Z/.test(t)) return 'Letter';
  if ((m = /^JSON text\((\d+)-(\d+)\)/.exec(t))) return `JSON(${m[1]}-${m[2]})`;
  if (/^enum(eration)?( of scheme names)?$/.test(t)) return 'Enum(*)';
  if (/^enum /.test(t)) {
    const values = t
      .slice(5)
      .split(/,\s*/)
      .map((item) => item.trim().split(/\s+/).pop()!)
      .filter((v) => /^[A-Z0-9_]+$/.test(v));
    return `Enum(${values.sort().join('|')})`;
  }
  if (/^String$/.test(t)) return 'String(?)';
  return `? ${t}`;
}
