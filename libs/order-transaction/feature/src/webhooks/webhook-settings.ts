import { readFileSync } from 'node:fs';
import { SealingKeyRing } from '@gateway/crypto';
import { DispatchOptions } from '@gateway/order-transaction/domain';
import { ConfigError, ConfigProblem } from '@gateway/platform';
import { OrderTransactionConfig } from '../order-transaction.config';

export interface WebhookSettings {
  keys: SealingKeyRing;
  dispatch: DispatchOptions;
  timeoutMs: number;
  extraCa?: string;
  workers: number;
  pollIntervalMs: number;
  retentionMs: number;
}

const HOUR_MS = 3_600_000;

/**
 * The dispatcher's settings, checked at start: a missing or malformed key or an unreadable CA
 * file stop the process with exit code 78, naming the variable and never a key.
 */
export function loadWebhookSettings(config: OrderTransactionConfig): WebhookSettings {
  const problems: ConfigProblem[] = [];
  const keys = attempt(problems, 'WEBHOOK_SECRET_KEYS', () => {
    if (!config.WEBHOOK_SECRET_KEYS) {
      throw new Error(`is required when ORDER_TRANSACTION_MODE is ${config.ORDER_TRANSACTION_MODE}`);
    }
    return SealingKeyRing.parse(config.WEBHOOK_SECRET_KEYS, 'WEBHOOK_SECRET_KEYS');
  });
  const extraCa = attempt(problems, 'WEBHOOK_CA_FILE', () => {
    if (!config.WEBHOOK_CA_FILE) {
      return undefined;
    }
    try {
      return readFileSync(config.WEBHOOK_CA_FILE, 'utf8');
    } catch {
      throw new Error('cannot be read');
    }
  });
  // No check against the database's idle-in-transaction timeout any more: claims are advisory
  // locks held by a session outside any transaction while receivers are called
  // (decisions/webhook-dispatcher-claims.md, amended 2026-11-25).
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return {
    keys: keys!,
    extraCa,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    workers: config.WEBHOOK_WORKERS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    retentionMs: config.WEBHOOK_RETENTION_DAYS * 24 * HOUR_MS,
    dispatch: {
      batchSize: config.WEBHOOK_BATCH_SIZE,
      maxInFlightPerTarget: config.WEBHOOK_MAX_IN_FLIGHT_PER_TARGET,
      allowNonPublicForTestMerchants: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      retry: {
        baseDelayMs: config.WEBHOOK_RETRY_BASE_MS,
        maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS,
        windowMs: config.WEBHOOK_RETRY_WINDOW_HOURS * HOUR_MS,
      },
    },
  };
}

function attempt<T>(problems: ConfigProblem[], variable: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    problems.push({ variable, problem: (err as Error).message });
    return undefined;
  }
}
