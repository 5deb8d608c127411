import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { defaultMerchantSettings, GatewayError, MERCHANT_MODES, MerchantMode, MerchantSettings } from '@gateway/contracts';
import { EDGE_SCHEMA, MerchantEntity, MerchantRepository } from '@gateway/edge/data-access';
import { ApiPasswordPeppers } from '@gateway/crypto';
import {
  describeCertificatePem,
  IssuedCredentials,
  ManageMerchants,
  normalizeFingerprint,
  NotificationSecretIssuer,
  PepperCensus,
  settingNameKeys,
} from '@gateway/edge/domain';
import {
  createServiceDataSource,
  loadConfig,
  loadStandaloneSecrets,
  migrateSchema,
  openStandaloneDatabase,
  StandaloneConfig,
  standaloneWebhookSecretKeys,
} from '@gateway/platform';
import { AdminConfig } from './admin.config';
import { provisionDatabase } from './provision-database';

export const USAGE = `Usage: admin [--standalone] [--json] <command> [arguments]

Manage merchant profiles and their API credentials.

Commands:
  create --name <name> [--id <id>] [--mode TEST|LIVE] [--set <setting>=<value> ...]
                               provision a merchant; prints its API password once
  list                         every merchant
  show <merchantId>            one merchant's profile
  set <merchantId> <setting>=<value> [...]
                               change settings, e.g. privileges.excessiveRefund=true,
                               tokenRepository.generation=PRESERVE_6_4, testAcquirer.latencyMs=500,
                               tokenRepository.id=482913749201,
                               'transactionFiltering.avsResponseCodeRules=[{"avsResponseCode":"NO_MATCH","action":"REJECT"}]'
  mode <merchantId> TEST|LIVE  switch between test and live
  enable <merchantId>          allow requests again
  disable <merchantId>         refuse every request (403 REQUEST_REJECTED)
  rotate-password <merchantId> [--keep-previous-hours <hours>]
                               issue a new API password; the old one works for <hours> (default 24)
  rotate-notification-secret <merchantId> [--keep-previous-hours <hours>]
                               issue a new webhook notification secret, shown once; notifications
                               carry a signature with the old one too for <hours> (default 24).
                               Enabling notifications (create/set notifications.enabled=true)
                               issues the first one.
  reseal-notification-secrets  after a new key was put first in WEBHOOK_SECRET_KEYS: seal every
                               merchant's notification secret again under it (secrets unchanged)
  password-peppers             which pepper each merchant's password hashes name (API_PASSWORD_PEPPERS
                               rotation): an old pepper can be dropped once no merchant holds one
                               under it; exit code 0 either way
  add-certificate <merchantId> <certificate.pem> [--by fingerprint|subject]
                               register a client certificate for certificate authentication: that
                               certificate (fingerprint, the default) or any with its subject
  revoke-certificate <merchantId> <certificate.pem|sha256-fingerprint>
                               refuse a client certificate from now on
  provision-database           create (or update) each service's Postgres role and schema from
                               DATABASE_ADMIN_URL and the services' URLs (the migration Job's first step)

Values (create --set and set): a text setting (tokenRepository.id, tokenRepository.generation, ...)
takes the value as written, digits included (482913749201 stays text); "..." quotes, if given, are
removed. Every other setting reads the value as JSON (true, 500, [...], {...}): quote it for the shell
('...') when it holds spaces, quotes or brackets. AVS rules name one of the spec's 12 AVS gateway
codes (ADDRESS_MATCH ... ZIP_MATCH, as the acquirer returns them), each code at most once.

Options:
  --standalone   use the standalone profile's embedded database (also GATEWAY_PROFILE=standalone)
  --json         machine-readable output on stdout (errors as {"error": ...} on stderr)

Exit code 0: done. 1: refused (no such merchant, an invalid setting, ...): nothing changed.
2: usage (an unknown command or option, a missing or extra argument, a bad option value): nothing
done, the database not even opened.

Distributed profile: DATABASE_URL (the edge's database) and API_PASSWORD_PEPPER and/or
API_PASSWORD_PEPPERS (api-edge's values) from the environment,
and WEBHOOK_SECRET_KEYS (order-transaction's) for notification secrets;
provision-database reads DATABASE_ADMIN_URL and EDGE_, TOKEN_VAULT_, ORDER_TRANSACTION_,
BROWSER_PAYMENT_ and VERIFICATION_DATABASE_URL instead. Every setting is listed in
docs/operations/configuration.md (admin CLI, admin provision-database, Standalone profile).
`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** Each command's arguments and its own options (--standalone, --json and --help go with any). */
const COMMANDS: Record<string, { args: string[]; min?: number; max?: number; options?: (keyof Values)[] }> = {
  create: { args: [], options: ['name', 'id', 'mode', 'set'] },
  list: { args: [] },
  show: { args: ['<merchantId>'] },
  set: { args: ['<merchantId>', '<setting>=<value>', '...'], min: 2, max: Infinity },
  mode: { args: ['<merchantId>', 'TEST|LIVE'] },
  enable: { args: ['<merchantId>'] },
  disable: { args: ['<merchantId>'] },
  'rotate-password': { args: ['<merchantId>'], options: ['keep-previous-hours'] },
  'rotate-notification-secret': { args: ['<merchantId>'], options: ['keep-previous-hours'] },
  'reseal-notification-secrets': { args: [] },
  'password-peppers': { args: [] },
  'add-certificate': { args: ['<merchantId>', '<certificate.pem>'], options: ['by'] },
  'revoke-certificate': { args: ['<merchantId>', '<certificate.pem|sha256-fingerprint>'] },
  'provision-database': { args: [] },
};

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      standalone: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      id: { type: 'string' },
      mode: { type: 'string' },
      set: { type: 'string', multiple: true },
      'keep-previous-hours': { type: 'string' },
      by: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
}

export async function runAdminCli(argv: string[], io: CliIo, env = process.env): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return usageError(io, argv.includes('--json'), (err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? 0 : 2;
  }
  const json = values.json ?? false;
  // Usage mistakes are refused before the database is opened (or the standalone one started):
  // an argument left over or an option the command ignores would otherwise pass unnoticed.
  const misuse = usageProblem(command, args, values);
  if (misuse) {
    return usageError(io, json, misuse);
  }
  if (command === 'provision-database') {
    return runCommand(io, json, async () => {
      const roles = await provisionDatabase(env);
      return { json: roles, text: roles.map((r) => `${r.app}\trole ${r.role} owns schema ${r.schema}`).join('\n') };
    });
  }
  const standalone = values.standalone || env.GATEWAY_PROFILE === 'standalone';
  const db = await openDatabase(standalone, env);
  try {
    const manage = new ManageMerchants(MerchantRepository.over(db.dataSource), db.peppers, db.notificationSecrets);
    const result = await execute(manage, command, args, values);
    io.out(json ? JSON.stringify(result.json, null, 2) : result.text);
    return 0;
  } catch (err) {
    return reportError(io, json, err);
  } finally {
    await db.close();
  }
}

async function runCommand(io: CliIo, json: boolean, command: () => Promise<{ json: unknown; text: string }>): Promise<number> {
  try {
    const result = await command();
    io.out(json ? JSON.stringify(result.json, null, 2) : result.text);
    return 0;
  } catch (err) {
    return reportError(io, json, err);
  }
}

/** What is wrong with the command line as written, if anything. */
function usageProblem(command: string, args: string[], values: Values & { standalone?: boolean }): string | undefined {
  if (!Object.hasOwn(COMMANDS, command)) {
    return `unknown command '${command}'`;
  }
  // provision-database always works on DATABASE_ADMIN_URL's database: --standalone was ignored,
  // and the distributed profile's roles provisioned by an operator who meant the embedded one.
  if (command === 'provision-database' && values.standalone) {
    return 'provision-database does not take --standalone (it provisions the distributed profile\'s database, DATABASE_ADMIN_URL)';
  }
  const spec = COMMANDS[command];
  const min = spec.min ?? spec.args.length;
  const max = spec.max ?? spec.args.length;
  if (args.length < min) {
    return `${command} needs ${spec.args.join(' ')}`;
  }
  if (args.length > max) {
    const extra = args.slice(max).map((a) => `'${a}'`).join(' ');
    return max === 0
      ? `${command} takes no argument, not ${extra}`
      : `${command} takes ${max} argument${max === 1 ? '' : 's'} (${spec.args.join(' ')}), not ${args.length}: ${extra}`;
  }
  const option = COMMAND_OPTIONS.find((name) => values[name] !== undefined && !spec.options?.includes(name));
  if (option) {
    return `${command} does not take --${option}`;
  }
  if (values['keep-previous-hours'] !== undefined && keepPreviousHours(values['keep-previous-hours']) === undefined) {
    return `--keep-previous-hours must be a number of hours from 0 to 720, not '${values['keep-previous-hours']}'`;
  }
  // Bad values the line alone shows, refused as usage too (exit code 2, the database not opened),
  // as --help says: they were refused with exit code 1 only once the database (or the standalone's
  // embedded Postgres) was open, as if the merchant or its settings were at fault.
  if (command === 'create' && !values.name) {
    return 'create needs --name <name>';
  }
  const mode = command === 'create' ? values.mode : command === 'mode' ? args[1] : undefined;
  if (mode !== undefined && !isMode(mode)) {
    return `${command === 'create' ? '--mode' : 'mode'} must be TEST or LIVE, not '${mode}'`;
  }
  if (values.by !== undefined && values.by !== 'fingerprint' && values.by !== 'subject') {
    return `--by must be fingerprint or subject, not '${values.by}'`;
  }
  return undefined;
}

/** Exit code 2: the command line is wrong, nothing was done. */
function usageError(io: CliIo, json: boolean, message: string): number {
  const text = `${message.replace(/\.$/, '')}. Run with --help.`;
  io.err(json ? JSON.stringify({ error: text }) : `error: ${text}`);
  return 2;
}

function reportError(io: CliIo, json: boolean, err: unknown): number {
  const message = err instanceof GatewayError ? (err.explanation ?? err.code) : String((err as Error)?.message ?? err);
  io.err(json ? JSON.stringify({ error: message }) : `error: ${message}`);
  return 1;
}

type Values = { name?: string; id?: string; mode?: string; set?: string[]; 'keep-previous-hours'?: string; by?: string };

/** The options that belong to some commands only. */
const COMMAND_OPTIONS: (keyof Values)[] = ['name', 'id', 'mode', 'set', 'keep-previous-hours', 'by'];

async function execute(
  manage: ManageMerchants,
  command: string,
  args: string[],
  values: Values,
): Promise<{ json: unknown; text: string }> {
  switch (command) {
    case 'create': {
      if (!values.name) {
        throw GatewayError.invalidRequest('create needs --name.');
      }
      const issued = await manage.create({
        id: values.id,
        name: values.name,
        mode: parseMode(values.mode ?? 'TEST'),
        settings: nestSettings(values.set ?? []),
      });
      return withNotificationSecret(credentials(issued, 'created'), issued.notificationSecret);
    }
    case 'list': {
      const merchants = await manage.list();
      return {
        json: merchants.map(describe),
        text: merchants.map((m) => `${m.id}\t${m.mode}\t${m.status}\t${m.name}`).join('\n') || '(no merchants)',
      };
    }
    case 'show':
      return shown(await manage.show(required(args[0], 'merchant id')));
    case 'set': {
      const id = required(args[0], 'merchant id');
      const changes = Object.fromEntries(args.slice(1).map(parseAssignment));
      if (Object.keys(changes).length === 0) {
        throw GatewayError.invalidRequest('set needs at least one <setting>=<value>.');
      }
      const configured = await manage.configure(id, changes);
      return withNotificationSecret(shown(configured.merchant), configured.notificationSecret);
    }
    case 'mode':
      return shown(await manage.setMode(required(args[0], 'merchant id'), parseMode(required(args[1], 'mode'))));
    case 'enable':
      return shown(await manage.setStatus(required(args[0], 'merchant id'), 'ENABLED'));
    case 'disable':
      return shown(await manage.setStatus(required(args[0], 'merchant id'), 'DISABLED'));
    case 'rotate-password':
      return credentials(await manage.rotatePassword(required(args[0], 'merchant id'), keepPreviousMs(values)), 'rotated');
    case 'reseal-notification-secrets': {
      const { resealed, unreadable } = await manage.resealNotificationSecrets();
      const lines = [
        resealed.length ? `Re-sealed: ${resealed.join(', ')}` : 'No notification secret needed re-sealing.',
        ...(unreadable.length ? [`No configured key opens the secret of: ${unreadable.join(', ')} (issue them new ones)`] : []),
      ];
      return { json: { resealed, unreadable }, text: lines.join('\n') };
    }
    case 'password-peppers':
      return pepperReport(await manage.pepperCensus());
    case 'rotate-notification-secret': {
      const rotated = await manage.rotateNotificationSecret(required(args[0], 'merchant id'), keepPreviousMs(values));
      return withNotificationSecret(shown(rotated.merchant), rotated.secret);
    }
    case 'add-certificate': {
      const certificate = readCertificate(required(args[1], 'certificate file'));
      const by = values.by ?? 'fingerprint';
      if (by !== 'fingerprint' && by !== 'subject') {
        throw GatewayError.invalidRequest(`--by must be fingerprint or subject, not '${by}'.`);
      }
      const registration = by === 'subject' ? { subject: certificate.subject } : { fingerprint: certificate.fingerprint };
      return shown(await manage.addCertificate(required(args[0], 'merchant id'), registration));
    }
    case 'revoke-certificate': {
      const target = required(args[1], 'certificate file or fingerprint');
      const fingerprint = normalizeFingerprint(target) ?? readCertificate(target).fingerprint;
      return shown(await manage.revokeCertificate(required(args[0], 'merchant id'), fingerprint));
    }
    default:
      throw GatewayError.invalidRequest(`Unknown command '${command}'. Run with --help.`);
  }
}

function credentials(issued: IssuedCredentials, verb: string): { json: unknown; text: string } {
  const m = issued.merchant;
  return {
    json: { ...describe(m), apiPassword: issued.password, username: `merchant.${m.id}` },
    text: [
      `Merchant ${m.id} ${verb} (${m.mode}).`,
      `  API username: merchant.${m.id}`,
      `  API password: ${issued.password}`,
      '  (shown once; only a keyed hash is stored)',
    ].join('\n'),
  };
}

function pepperReport(census: PepperCensus): { json: unknown; text: string } {
  const ids = (list: string[]) => (list.length > 10 ? `${list.slice(0, 10).join(', ')}, ...` : list.join(', '));
  const lines = census.peppers.map((p) => {
    const state = p.current ? 'current' : p.configured ? 'verify only' : 'NOT CONFIGURED: these passwords no longer authenticate';
    const previous = p.previousPasswords.length ? `, ${p.previousPasswords.length} previous password(s) still in their keep-previous window (${ids(p.previousPasswords)})` : '';
    return `  ${p.id} (${state}): ${p.passwords.length} merchant(s)${p.passwords.length && !p.current ? ` (${ids(p.passwords)})` : ''}${previous}`;
  });
  const verdict = census.notRehashed.length
    ? `${census.notRehashed.length} merchant(s) still hold a hash under a pepper other than ${census.currentId}: keep that pepper until they authenticate (each is re-hashed then) or get a new password (rotate-password <id> --keep-previous-hours 0: with a window, their previous password keeps its hash under the old pepper until the window ends).`
    : `Every merchant's hashes are under ${census.currentId}: the other peppers can be dropped.`;
  return { json: census, text: [`Password hashes by pepper (new hashes: ${census.currentId}):`, ...lines, verdict].join('\n') };
}

function keepPreviousMs(values: Values): number {
  const hours = keepPreviousHours(values['keep-previous-hours'] ?? '24');
  if (hours === undefined) {
    throw GatewayError.invalidRequest('--keep-previous-hours must be a number of hours from 0 to 720.');
  }
  return hours * 3_600_000;
}

/**
 * Hours written as decimal digits (`24`, `0.5`), 0 to 720. Anything else is refused rather than
 * read as Number() reads it: an empty value ("$HOURS" unset) would be 0, which revokes the
 * previous credential at once.
 */
function keepPreviousHours(text: string): number | undefined {
  const hours = Number(text);
  return /^[0-9]+(\.[0-9]+)?$/.test(text) && hours <= 24 * 30 ? hours : undefined;
}

/** A notification secret just issued: shown once, like an API password. */
function withNotificationSecret(result: { json: unknown; text: string }, secret: string | undefined): { json: unknown; text: string } {
  if (!secret) {
    return result;
  }
  return {
    json: { ...(result.json as object), notificationSecret: secret },
    text: [result.text, `  Notification secret: ${secret}`, '  (shown once; receivers check it and the signature of every notification)'].join('\n'),
  };
}

function shown(merchant: MerchantEntity): { json: unknown; text: string } {
  return { json: describe(merchant), text: JSON.stringify(describe(merchant), null, 2) };
}

function describe(m: MerchantEntity) {
  return {
    id: m.id,
    name: m.name,
    mode: m.mode,
    status: m.status,
    settings: withoutSealedSecrets(m.settings),
    previousPasswordValidUntil: m.previousPasswordExpiresAt?.toISOString() ?? null,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/** Sealed secrets are ciphertext, but nobody needs to see them: only whether one is issued. */
function withoutSealedSecrets(settings: MerchantSettings): unknown {
  const secret = settings.notifications.secret;
  return {
    ...settings,
    notifications: {
      ...settings.notifications,
      secret: secret ? { issued: true, ...(secret.previousValidUntil ? { previousValidUntil: secret.previousValidUntil } : {}) } : { issued: false },
    },
  };
}

function readCertificate(file: string): { fingerprint: string; subject: string } {
  if (!existsSync(file)) {
    throw GatewayError.invalidRequest(`No certificate file ${file}.`);
  }
  try {
    return describeCertificatePem(readFileSync(file, 'utf8'));
  } catch (err) {
    throw GatewayError.invalidRequest(`${file} is not a PEM certificate: ${(err as Error).message}.`);
  }
}

function isMode(value: string): value is MerchantMode {
  return (MERCHANT_MODES as readonly string[]).includes(value);
}

function parseMode(value: string): MerchantMode {
  if (!isMode(value)) {
    throw GatewayError.invalidRequest(`Mode must be TEST or LIVE, not '${value}'.`);
  }
  return value as MerchantMode;
}

function required(value: string | undefined, what: string): string {
  if (!value) {
    throw GatewayError.invalidRequest(`Missing ${what}.`);
  }
  return value;
}

/**
 * `path=value`. A text setting (its default is text: tokenRepository.id, tokenRepository.generation,
 * ...) takes the value as it is, so `tokenRepository.id=482913749201` stays the text it names
 * (JSON would make it a number, which the setting refuses, and drop leading zeros); a value
 * quoted as JSON text (`"..."`) loses its quotes. Any other setting reads the value as JSON when
 * it parses (true, 500, [..]) and as text otherwise, for the settings' own checks to judge.
 */
function parseAssignment(assignment: string): [string, unknown] {
  const at = assignment.indexOf('=');
  if (at <= 0) {
    throw GatewayError.invalidRequest(`Expected <setting>=<value>, got '${assignment}'.`);
  }
  const path = assignment.slice(0, at);
  const raw = assignment.slice(at + 1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [path, raw];
  }
  if (isTextSetting(path) && typeof parsed !== 'string') {
    return [path, raw];
  }
  return [path, parsed];
}

/** Whether the setting at `path` holds text, as its default value says (every setting has one). */
function isTextSetting(path: string): boolean {
  let node: unknown = defaultMerchantSettings();
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) {
      return false;
    }
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'string';
}

function nestSettings(assignments: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of assignments.map(parseAssignment)) {
    // Refused as `set` refuses them: `__proto__.x` or `constructor.prototype.x` walked into
    // Object.prototype (the insert then failed, naming a property of no merchant).
    const keys = settingNameKeys(path);
    let node = out;
    for (const key of keys.slice(0, -1)) {
      node[key] = (node[key] as Record<string, unknown>) ?? {};
      node = node[key] as Record<string, unknown>;
    }
    node[keys[keys.length - 1]] = value;
  }
  return out;
}

async function openDatabase(standalone: boolean, env: NodeJS.ProcessEnv) {
  let url: string;
  let peppers: ApiPasswordPeppers;
  let webhookKeys: string;
  let stop = async () => undefined as void;
  if (standalone) {
    const config = loadConfig(StandaloneConfig, env);
    // The database first: it refuses a running gateway's whose data folder is not this one,
    // before secrets are generated here for a folder no gateway uses.
    const pg = await openStandaloneDatabase(config);
    stop = pg.stop;
    url = pg.url;
    try {
      const secrets = await loadStandaloneSecrets(config, ['webhookSecretKey']);
      peppers = ApiPasswordPeppers.single(secrets.apiPasswordPepper);
      webhookKeys = standaloneWebhookSecretKeys(secrets);
    } catch (err) {
      // An embedded Postgres started for this command is not left running.
      await stop();
      throw err;
    }
  } else {
    const config = loadConfig(AdminConfig, env);
    url = config.DATABASE_URL;
    peppers = ApiPasswordPeppers.fromConfig(config);
    webhookKeys = config.WEBHOOK_SECRET_KEYS;
  }
  const dataSource = createServiceDataSource(EDGE_SCHEMA, {
    url,
    poolSize: 2,
    statementTimeoutMs: 10_000,
    applicationName: 'admin-cli',
  });
  let notificationSecrets: NotificationSecretIssuer | undefined;
  try {
    notificationSecrets = webhookKeys ? NotificationSecretIssuer.fromConfig(webhookKeys) : undefined;
    await dataSource.initialize();
    // A fresh database (the CLI before the first start) gets the edge schema first.
    await migrateSchema(dataSource);
  } catch (err) {
    await (dataSource.isInitialized ? dataSource.destroy() : undefined);
    await stop();
    throw err;
  }
  return {
    dataSource,
    peppers,
    notificationSecrets,
    close: async () => {
      await dataSource.destroy();
      await stop();
    },
  };
}
