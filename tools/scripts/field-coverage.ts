/**
 * Field coverage: every request field the spec lists for the five operations, its validator
 * (the request class's decorator, whose type must be the spec's) and the edge test that covers
 * it (valid at each bound, invalid past each bound, wrong JSON type, MISSING when required).
 * Fails when a field lacks either, when a validator's type or requirement differs from the spec
 * without a reviewed reason below, when a request class accepts a field the spec does not list
 * and no decision says why, or when docs/field-coverage.md is out of date.
 *
 *   npm run fields:coverage            check (CI)
 *   npm run fields:coverage -- --write regenerate docs/field-coverage.md
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeRequest, FieldDescription } from '@gateway/api-fields';
import { FIELD_CASES_TEST, fieldCases, FieldCases, OPERATION_REQUESTS } from '../../libs/edge/feature/src/http/testing/request-field-cases';
import { extractRequestFields, Operation, OPERATIONS, SpecField } from './spec-request-fields';

const ROOT = path.resolve(__dirname, '../..');
const SPEC = 'docs/spec/gateway-api.md';
const REPORT = 'docs/field-coverage.md';

/**
 * Where a validator deliberately reads the spec differently from its raw text, and why. Each
 * entry is checked: it must still be needed (the texts must differ as stated).
 */
const READINGS: { operation: Operation | '*'; path: RegExp; spec: string; validator: string; why: string }[] = [
  {
    operation: 'VERIFY',
    path: /^shipping\.contact\.email$/,
    spec: 'String(1-50)',
    validator: 'Email',
    why: 'the list "contact.email, firstName, lastName String(1-50)" gives the names their type; an email is an Email everywhere else (refund, customer.email)',
  },
  {
    operation: 'VERIFY',
    path: /^customer\.middleName$/,
    spec: 'String(?)',
    validator: 'String(1-50)',
    why: "the spec shows middleName's bounds as not shown; firstName and lastName are String(1-50)",
  },
];

const REQUIREMENT_READINGS: { operation: Operation; path: string; why: string }[] = [
  {
    operation: 'TOKEN',
    path: 'sourceOfFunds.type',
    why: 'REQUIRED, but "with a token alone it may be left unset": a cross-field rule reports it MISSING otherwise',
  },
];

/** Fields the request classes accept beyond the spec's visible tables, and the decision that says why. */
const BEYOND_THE_SPEC: { operation: Operation; path: string; why: string }[] = [
  ...['order.currency', 'sourceOfFunds.type', 'sourceOfFunds.token', 'sourceOfFunds.provided.card.securityCode'].map((p) => ({
    operation: 'VERIFY' as const,
    path: p,
    why: 'not shown in the spec\'s visible part of verify; accepted as the real gateway does (docs/decisions/verify-request-fields-beyond-the-spec.md)',
  })),
  ...[
    'customer.mobilePhone',
    'customer.phone',
    'device',
    'device.ani',
    'device.aniCallType',
    'device.browser',
    'device.fingerprint',
    'device.hostname',
    'device.ipAddress',
    'order.custom.<name>',
    'order.customerNote',
    'order.customerOrderDate',
    'order.customerReference',
    'order.description',
    'order.reference',
    'order.requestorName',
    'transaction',
    'transaction.merchantNote',
    'transaction.reference',
    'transaction.source',
  ].map((p) => ({
    operation: 'VERIFY' as const,
    path: p,
    why: "in a range of verify the spec does not show; a merchant's own references and descriptive fields, with the type the spec gives them on refund and initiate (docs/decisions/verify-request-fields-beyond-the-spec.md)",
  })),
  {
    operation: 'VERIFY',
    path: 'order.purchaseType',
    why: 'in a range of verify the spec does not show; the spec names it as the switch for accountFunding ("for order.purchaseType=ACCOUNT_FUNDING"), an enumeration whose other values it does not show (docs/decisions/verify-request-fields-beyond-the-spec.md)',
  },
];

interface Row {
  spec: SpecField;
  validator?: FieldDescription;
  cases?: FieldCases;
  problems: string[];
  notes: string[];
}

export function analyse(fields: SpecField[]): { rows: Row[]; extras: { operation: Operation; path: string; why?: string }[]; problems: string[] } {
  const rows: Row[] = [];
  const problems: string[] = [];
  const extras: { operation: Operation; path: string; why?: string }[] = [];
  for (const operation of OPERATIONS) {
    const validators = new Map(describeRequest(OPERATION_REQUESTS[operation]).map((f) => [f.path, f]));
    const cases = new Map(fieldCases(operation).map((c) => [c.path, c]));
    const specFields = fields.filter((f) => f.operation === operation);
    for (const spec of specFields) {
      const row: Row = { spec, validator: validators.get(spec.path), cases: cases.get(spec.path), problems: [], notes: [] };
      check(row);
      rows.push(row);
      problems.push(...row.problems.map((p) => `${operation} ${spec.path}: ${p}`));
    }
    const listed = new Set(specFields.map((f) => f.path));
    for (const [fieldPath, validator] of validators) {
      if (listed.has(fieldPath)) continue;
      const underListed = validator.kind === 'group' || validator.kind === 'array' ? [...listed].some((p) => p.startsWith(`${fieldPath}.`) || p.startsWith(`${fieldPath.replace(/\[n\]$/, '')}[n]`)) : false;
      if (underListed) continue;
      const reason = BEYOND_THE_SPEC.find((b) => b.operation === operation && b.path === fieldPath);
      extras.push({ operation, path: fieldPath, why: reason?.why });
      if (!reason) problems.push(`${operation} ${fieldPath}: accepted by ${OPERATION_REQUESTS[operation].name} but not listed in the spec, and no decision says why`);
    }
  }
  for (const beyond of BEYOND_THE_SPEC) {
    if (!extras.some((e) => e.operation === beyond.operation && e.path === beyond.path)) {
      problems.push(`${beyond.operation} ${beyond.path}: listed as beyond the spec, but the spec lists it or no class accepts it`);
    }
  }
  const notes = rows.flatMap((r) => r.notes);
  for (const reading of [...READINGS.map((r) => r.why), ...REQUIREMENT_READINGS.map((r) => r.why)]) {
    if (!notes.some((n) => n.includes(reading))) problems.push(`a reviewed reading is no longer needed: ${reading}`);
  }
  return { rows, extras, problems };
}

function check(row: Row): void {
  const { spec, validator, cases } = row;
  if (!validator) {
    row.problems.push('no validator');
    return;
  }
  if (validator.notation !== spec.notation) {
    const reading = READINGS.find(
      (r) => (r.operation === '*' || r.operation === spec.operation) && r.path.test(spec.path) && r.spec === spec.notation && r.validator === validator.notation,
    );
    if (reading) row.notes.push(`read as ${validator.notation}: ${reading.why}`);
    else row.problems.push(`validator type ${validator.notation}, the spec says ${spec.notation} ("${spec.specType}")`);
  }
  if (validator.required !== (spec.requirement === 'REQUIRED')) {
    const reading = REQUIREMENT_READINGS.find((r) => r.operation === spec.operation && r.path === spec.path);
    if (reading) row.notes.push(reading.why);
    else row.problems.push(`validator ${validator.required ? 'requires' : 'does not require'} it, the spec says ${spec.requirement}`);
  }
  if (!cases) {
    row.problems.push('no test cases');
    return;
  }
  const kinds = new Set(cases.cases.map((c) => c.kind));
  // A Boolean has no bound to pass and a group no value but the wrong JSON type: for them that is the invalid case.
  const invalidKinds = validator.notation === 'Boolean' || validator.kind === 'group' ? ['wrong JSON type'] : ['invalid', 'wrong JSON type'];
  for (const kind of ['valid', ...invalidKinds]) {
    if (!kinds.has(kind as never)) row.problems.push(`no ${kind} test case`);
  }
  if (validator.required && !kinds.has('missing')) row.problems.push('REQUIRED but no MISSING test case');
}

function describeCases(cases: FieldCases): string {
  const count = (kind: string) => cases.cases.filter((c) => c.kind === kind).length;
  const parts = [`${count('valid')} valid`, `${count('invalid')} invalid`];
  if (count('wrong JSON type')) parts.push('wrong JSON type');
  if (count('missing')) parts.push('MISSING');
  return parts.join(', ');
}

const OPERATION_TITLES: Record<Operation, string> = {
  TOKEN: 'Create or update token (`SaveTokenRequest`)',
  REFUND: 'REFUND (`RefundRequest`)',
  INITIATE_BROWSER_PAYMENT: 'INITIATE_BROWSER_PAYMENT (`InitiateBrowserPaymentRequest`)',
  CONFIRM_BROWSER_PAYMENT: 'CONFIRM_BROWSER_PAYMENT (`ConfirmBrowserPaymentRequest`)',
  VERIFY: 'VERIFY (`VerifyRequest`)',
};

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function render(rows: Row[], extras: { operation: Operation; path: string; why?: string }[]): string {
  const lines: string[] = [
    '# Request field coverage',
    '',
    `Generated by \`npm run fields:coverage -- --write\` from \`${SPEC}\` (do not edit by hand; CI fails when it is stale).`,
    '',
    'For every request field the spec lists, per operation: the type the spec gives it, the validator that',
    'enforces it (a decorator of `libs/api-fields` on the operation\'s request class in',
    '`libs/contracts/src/requests/`, whose type notation must equal the spec\'s), and the cases that',
    `\`${FIELD_CASES_TEST}\` sends through the HTTP edge for it (its test is named after the operation`,
    'and the field): valid values at each bound (accepted and forwarded unchanged), invalid values past each',
    'bound and a wrong JSON type (400 INVALID on the field, service not called), MISSING when required.',
    '',
    `| Operation | Fields | With validator | With test cases |`,
    `|---|---|---|---|`,
  ];
  for (const operation of OPERATIONS) {
    const own = rows.filter((r) => r.spec.operation === operation);
    lines.push(`| ${operation} | ${own.length} | ${own.filter((r) => r.validator).length} | ${own.filter((r) => r.cases).length} |`);
  }
  for (const operation of OPERATIONS) {
    lines.push('', `## ${OPERATION_TITLES[operation]}`, '', '| Field | Spec type | Req | Validator | Test cases | Notes |', '|---|---|---|---|---|---|');
    for (const row of rows.filter((r) => r.spec.operation === operation)) {
      const validator = row.validator ? `\`${row.validator.decorator}\` ${row.validator.notation}${row.validator.sensitive ? ' (sensitive)' : ''}` : '**none**';
      const cases = row.cases ? `${operation} › ${row.spec.path}: ${describeCases(row.cases)}` : '**none**';
      const notes = [...row.notes, ...row.problems.map((p) => `**${p}**`)].join('; ');
      lines.push(`| \`${row.spec.path}\` | ${cell(row.spec.specType)} | ${row.spec.requirement === 'REQUIRED' ? 'REQUIRED' : 'OPT'} | ${cell(validator)} | ${cell(cases)} | ${cell(notes)} |`);
    }
  }
  lines.push('', '## Accepted beyond the spec\'s field lists', '', '| Operation | Field | Why |', '|---|---|---|');
  for (const extra of extras) lines.push(`| ${extra.operation} | \`${extra.path}\` | ${cell(extra.why ?? '**no decision**')} |`);
  lines.push('');
  return lines.join('\n');
}

function main(): void {
  const spec = readFileSync(path.join(ROOT, SPEC), 'utf8');
  // The team's spec lives beside the repository (../shared); the repository keeps the copy it was checked against.
  const shared = path.join(ROOT, '..', 'shared', 'spec', 'gateway-api.md');
  if (existsSync(shared) && readFileSync(shared, 'utf8') !== spec) {
    process.stdout.write(`  ! ${SPEC} differs from ../shared/spec/gateway-api.md: copy the new spec and re-run with --write\n`);
  }
  const fields = extractRequestFields(spec);
  const { rows, extras, problems } = analyse(fields);
  const report = render(rows, extras);
  const target = path.join(ROOT, REPORT);
  if (process.argv.includes('--write')) {
    writeFileSync(target, report);
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = '';
  }
  const counts = OPERATIONS.map((o) => `${o} ${rows.filter((r) => r.spec.operation === o).length}`).join(', ');
  process.stdout.write(`field coverage: ${rows.length} spec fields (${counts}); ${extras.length} accepted beyond the spec's lists\n`);
  for (const problem of problems) process.stdout.write(`  ✗ ${problem}\n`);
  if (current !== report) {
    problems.push(`${REPORT} is out of date: run npm run fields:coverage -- --write`);
    process.stdout.write(`  ✗ ${REPORT} is out of date: run npm run fields:coverage -- --write\n`);
  }
  if (problems.length > 0) {
    process.stdout.write(`field coverage: ${problems.length} problem(s)\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('field coverage: every spec field has its validator and its tests\n');
  }
}

if (require.main === module) {
  main();
}
