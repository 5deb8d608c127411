import { execFile } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { checkResponse, ConformanceAnswer, ConformanceRequest, describeViolations, isMerchantApiPath } from '@gateway/testing';
import { DIST, ROOT } from './processes';
import { readState } from './e2e-state';

const run = promisify(execFile);
const SECRETS_DIR = path.join(ROOT, 'test-artifacts', 'secrets');

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface TestMerchant {
  id: string;
  password: string;
  authorization: string;
  /** `/api/rest/version/<v>/merchant/<id>` */
  base(version?: number): string;
  /** Issued when the merchant was created with notifications enabled. */
  notificationSecret?: string;
}

/** A raw HTTP call to the gateway under test. */
export async function call<T = Record<string, unknown>>(
  method: string,
  urlPath: string,
  options: { body?: unknown; rawBody?: string; authorization?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.authorization) {
    headers.authorization = options.authorization;
  }
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${readState().baseUrl}${urlPath}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (isMerchantApiPath(urlPath)) {
    const sent = options.body !== undefined ? options.body : parseOrUndefined(options.rawBody);
    assertConformance({ method, path: urlPath, body: sent }, { status: response.status, headers: response.headers, text, body: parsed });
  }
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

/**
 * `fetch` of a merchant API path on a gateway other than the run's own (a test's own edge or
 * `npm start`): the answer is checked like `call`'s, and returned unread.
 */
export async function checkedFetch(baseUrl: string, urlPath: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${baseUrl}${urlPath}`, init);
  const text = await response.clone().text();
  assertConformance(
    { method: init.method ?? 'GET', path: urlPath, body: typeof init.body === 'string' ? parseOrUndefined(init.body) : undefined },
    { status: response.status, headers: response.headers, text, body: parseOrUndefined(text) },
    baseUrl,
  );
  return response;
}

function parseOrUndefined(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Fails the calling test when a merchant REST API answer breaks the spec's response rules
 * (libs/testing response-conformance.ts). Every e2e call goes through `call`; a spec that reaches the API
 * another way (its own fetch, another gateway instance) calls this itself.
 *
 * `E2E_CONFORMANCE=collect` records violations in test-artifacts/conformance-violations.log
 * instead of failing (a survey of a whole run while rules or product are being changed).
 */
export function assertConformance(request: ConformanceRequest, answer: ConformanceAnswer, baseUrl = ownBaseUrl()): void {
  const violations = checkResponse(request, answer, { ownBaseUrl: baseUrl });
  if (violations.length === 0) {
    return;
  }
  const message = describeViolations(request, answer.status, violations);
  if (process.env.E2E_CONFORMANCE === 'collect') {
    const testName = expect.getState().currentTestName ?? '(outside a test)';
    mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    appendFileSync(path.join(ROOT, 'test-artifacts', 'conformance-violations.log'), `${testName}\n${message}\n\n`);
    return;
  }
  throw new Error(message);
}

function ownBaseUrl(): string | undefined {
  try {
    return readState().baseUrl;
  } catch {
    return undefined;
  }
}

/** Runs the admin CLI against this run's gateway, as the platform team would. */
export async function admin(args: string[]): Promise<unknown> {
  const state = readState();
  const { stdout } = await run(process.execPath, [path.join(DIST, 'apps/admin/src/main.js'), ...state.adminArgs, '--json', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...state.adminEnv },
  });
  const result = JSON.parse(stdout) as { apiPassword?: string; notificationSecret?: string };
  for (const secret of [result.apiPassword, result.notificationSecret]) {
    if (secret) {
      recordSecret(secret);
    }
  }
  return result;
}

/** Every secret the run issues, for the log scan that runs after all tiers. */
export function recordSecret(secret: string): void {
  mkdirSync(SECRETS_DIR, { recursive: true });
  appendFileSync(path.join(SECRETS_DIR, 'issued.txt'), `${secret}\n`);
}

/** A fresh merchant for a test, with settings given as `path -> value`. */
export async function createMerchant(
  settings: Record<string, unknown> = {},
  options: { mode?: 'TEST' | 'LIVE'; name?: string } = {},
): Promise<TestMerchant> {
  const id = `E2E${randomBytes(5).toString('hex').toUpperCase()}`;
  const sets = Object.entries(settings).flatMap(([k, v]) => ['--set', `${k}=${JSON.stringify(v)}`]);
  const created = (await admin([
    'create',
    '--id',
    id,
    '--name',
    options.name ?? 'E2E merchant',
    '--mode',
    options.mode ?? 'TEST',
    ...sets,
  ])) as { id: string; apiPassword: string; notificationSecret?: string };
  return { ...merchantWith(created.id, created.apiPassword), notificationSecret: created.notificationSecret };
}

export function merchantWith(id: string, password: string): TestMerchant {
  return {
    id,
    password,
    authorization: basic(`merchant.${id}`, password),
    base: (version = 100) => `/api/rest/version/${version}/merchant/${id}`,
  };
}

export async function configureMerchant(id: string, settings: Record<string, unknown>): Promise<void> {
  await admin(['set', id, ...Object.entries(settings).map(([k, v]) => `${k}=${JSON.stringify(v)}`)]);
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export { readState };
