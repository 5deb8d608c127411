import { readdirSync } from 'node:fs';
import path from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { AdminConfig, ProvisionDatabaseConfig } from '../../apps/admin/src/admin.config';
import { BrowserPaymentConfig } from '@gateway/browser-payment/feature';
import { EdgeConfig } from '@gateway/edge/feature';
import { OrderTransactionConfig } from '@gateway/order-transaction/feature';
import { DatabaseConfig, describeVariables, PlatformConfig, StandaloneConfig, VariableDoc } from '@gateway/platform';
import { TokenVaultConfig } from '@gateway/token-vault/feature';
import { VerificationConfig } from '@gateway/verification/feature';

export const ROOT = path.resolve(__dirname, '../..');
export const REFERENCE_FILE = path.join(ROOT, 'docs/operations/configuration.md');

type ConfigClass = new () => object;

interface Section {
  title: string;
  /** Who reads these variables, in a sentence. */
  readers: string;
  configClass: ConfigClass;
  /** Variables already listed in a shared section: shown here only when the default differs. */
  shared?: ConfigClass;
}

/**
 * Every configuration an app or command reads, in the order the reference lists them. A new
 * variable in one of these classes appears in the reference on the next `npm run docs:config`;
 * a new config class must be added here (the reference's test fails until it is).
 */
export const SECTIONS: Section[] = [
  { title: 'Every app', readers: 'api-edge, token-vault, order-transaction, browser-payment, verification and the standalone gateway', configClass: PlatformConfig },
  { title: 'Apps with a database', readers: 'every app above; each service has its own schema and role', configClass: DatabaseConfig, shared: PlatformConfig },
  { title: 'api-edge', readers: 'the HTTP edge', configClass: EdgeConfig, shared: DatabaseConfig },
  { title: 'token-vault', readers: 'the card and account vault', configClass: TokenVaultConfig, shared: DatabaseConfig },
  { title: 'order-transaction', readers: 'the order ledger and the webhook dispatcher', configClass: OrderTransactionConfig, shared: DatabaseConfig },
  { title: 'browser-payment', readers: 'browser payments with providers', configClass: BrowserPaymentConfig, shared: DatabaseConfig },
  { title: 'verification', readers: 'card verification', configClass: VerificationConfig, shared: DatabaseConfig },
  { title: 'admin CLI (merchant commands)', readers: '`node dist/apps/admin/src/main.js create|list|set|...`', configClass: AdminConfig, shared: DatabaseConfig },
  {
    title: 'admin provision-database (migration Job, first step)',
    readers: '`node dist/apps/admin/src/main.js provision-database`',
    configClass: ProvisionDatabaseConfig,
    shared: PlatformConfig,
  },
  { title: 'Standalone profile', readers: '`npm start` (apps/gateway) and `admin --standalone`; never production', configClass: StandaloneConfig },
];

export interface Variable extends VariableDoc {
  name: string;
  default: unknown;
  rules: string[];
}

/** The variables of a config class: documentation, default and validation rules of each. */
export function variablesOf(configClass: ConfigClass): Variable[] {
  const docs = describeVariables(configClass);
  const defaults = new configClass() as Record<string, unknown>;
  const undocumented = Object.keys(defaults).filter((name) => !docs[name]);
  if (undocumented.length > 0) {
    throw new Error(`${configClass.name}: ${undocumented.join(', ')} ha(s|ve) no @Describe; every variable is documented.`);
  }
  const rules = rulesOf(configClass);
  return Object.keys(defaults).map((name) => ({ name, ...docs[name], default: defaults[name], rules: rules.get(name) ?? [] }));
}

function rulesOf(configClass: ConfigClass): Map<string, string[]> {
  const byProperty = new Map<string, { type: string; name?: string; constraints: unknown[]; message?: unknown }[]>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(configClass, '', true, false)) {
    byProperty.set(meta.propertyName, [...(byProperty.get(meta.propertyName) ?? []), meta]);
  }
  const rules = new Map<string, string[]>();
  for (const [property, metas] of byProperty) {
    const find = (name: string) => metas.find((m) => m.name === name);
    const out: string[] = [];
    const isIn = find('isIn');
    if (isIn) out.push(`one of ${(isIn.constraints[0] as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`);
    if (find('isBoolean')) out.push('`true` or `false`');
    if (find('isInt')) {
      const min = find('min')?.constraints[0];
      const max = find('max')?.constraints[0];
      out.push(min !== undefined && max !== undefined ? `integer ${min}–${max}` : 'integer');
    }
    const minLength = find('minLength');
    if (minLength) out.push(`at least ${String(minLength.constraints[0])} characters`);
    const matches = find('matches');
    if (matches) {
      out.push(typeof matches.message === 'string' ? matches.message : `matches \`${String(matches.constraints[0])}\``);
    }
    if (metas.some((m) => m.type === 'conditionalValidation')) out.push('may be empty');
    rules.set(property, out);
  }
  return rules;
}

function renderDefault(variable: Variable): string {
  if (variable.default === undefined) return variable.rules.includes('may be empty') ? '(unset)' : '**required**';
  if (variable.default === '') return '(empty)';
  return `\`${String(variable.default)}\``;
}

function renderSecret(variable: Variable): string {
  if (variable.credentialsInUrl) return '**yes**, with credentials in the URL';
  return variable.secret ? '**yes**' : 'no';
}

function renderTable(variables: Variable[]): string[] {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| Variable | Default | Secret | Description | Accepted values |',
    '| --- | --- | --- | --- | --- |',
    ...variables.map(
      (v) =>
        `| \`${v.name}\` | ${cell(renderDefault(v))} | ${renderSecret(v)} | ${cell(v.description)} | ${cell(v.rules.join('; '))} |`,
    ),
  ];
}

/** The Markdown of docs/operations/configuration.md. */
export function renderConfigReference(): string {
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from the config classes (@Describe, defaults and validation rules) by',
    '     `npm run docs:config`. Do not edit by hand: a unit test fails when this file is stale. -->',
    '',
    'Every app reads its configuration from environment variables once, at start, and refuses to',
    'start (exit code 78) naming each variable that is missing or invalid. **Secret** variables',
    'come from Kubernetes Secrets (see [the operator\'s guide](README.md#secrets)); never put them',
    'in a ConfigMap. A URL secret "with credentials in the URL" may be in a ConfigMap only without',
    'them (no user, password or token before an `@`). Secrets are never shown when the configuration',
    'is described. An empty value counts as unset and takes the default.',
    '',
  ];
  for (const section of SECTIONS) {
    const sharedDefaults = section.shared ? new Map(variablesOf(section.shared).map((v) => [v.name, v.default])) : new Map();
    const variables = variablesOf(section.configClass).filter(
      (v) => !sharedDefaults.has(v.name) || sharedDefaults.get(v.name) !== v.default,
    );
    const sharedTitle = SECTIONS.find((s) => s.configClass === section.shared)?.title;
    lines.push(`## ${section.title}`, '', `Read by ${section.readers}.`);
    if (sharedTitle) {
      lines.push(`Also reads every variable of [${sharedTitle}](#${anchor(sharedTitle)})${variables.some((v) => sharedDefaults.has(v.name)) ? '; the defaults below differ from it' : ''}.`);
    }
    lines.push('');
    lines.push(...(variables.length > 0 ? renderTable(variables) : ['No variables of its own.']), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

/** Every `*.config.ts` under apps/ and libs/: where config classes live. */
export function configFiles(dir = ROOT): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.config.ts')) found.push(full);
    }
  };
  for (const top of ['apps', 'libs']) walk(path.join(dir, top));
  return found.sort();
}
