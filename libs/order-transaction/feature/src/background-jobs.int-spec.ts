import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ModulesContainer } from '@nestjs/core';
import { DispatchNotifications, DispatchWorker, InquireUnknown, InquiryRound } from '@gateway/order-transaction/domain';
import { waitFor } from '@gateway/testing';
import { LedgerTestApp, startLedgerTestApp } from './testing/ledger-test-app';

/**
 * A stopping ledger in `all` mode (the standalone gateway's) with both of its waiting jobs busy:
 * an inquiry in progress and a webhook delivery in flight, each taking WORK_MS. Nest 12 calls
 * `beforeApplicationShutdown` one dependency depth after another, and the reconciler sits deeper
 * than the dispatcher: with hooks of their own, the dispatcher went on claiming deliveries while
 * the reconciler finished its inquiry, and the stop took the sum of their waits, which
 * shutdownGraceNeeded does not count. The inquiry and the deliveries are stand-ins (what they
 * ask and send is tested in inquire-unknown and webhooks); the app, its wiring and Nest's
 * shutdown are real.
 */
const WORK_MS = 2_000;
/** The first round of inquiries, well after the dispatcher's first delivery has begun. */
const INQUIRY_INTERVAL_MS = 600;

let rounds: { started: number; ended?: number }[];
let deliveries: { started: number; ended?: number }[];

beforeEach(() => {
  rounds = [];
  deliveries = [];
  jest.spyOn(InquireUnknown.prototype, 'round').mockImplementation(async (): Promise<InquiryRound> => {
    const round: { started: number; ended?: number } = { started: Date.now() };
    rounds.push(round);
    // One inquiry in progress: the acquirer slow to answer (INQUIRY_WAIT_MS at the most).
    await sleep(WORK_MS);
    round.ended = Date.now();
    return { claimed: 1, resolved: 1, retried: 0, dropped: 0, released: 0 };
  });
  jest.spyOn(DispatchNotifications.prototype, 'worker').mockImplementation(() => slowReceiverWorker());
});

afterEach(() => jest.restoreAllMocks());

/** A dispatcher worker with one slot, always a notification due, each delivery WORK_MS (a receiver slow to answer). */
function slowReceiverWorker(): DispatchWorker {
  let inFlight: Promise<void> | null = null;
  const worker = {
    get freeSlots() {
      return inFlight ? 0 : 1;
    },
    async claimDue() {
      if (inFlight) return 0;
      const delivery: { started: number; ended?: number } = { started: Date.now() };
      deliveries.push(delivery);
      inFlight = sleep(WORK_MS).then(() => {
        delivery.ended = Date.now();
        inFlight = null;
      });
      return 1;
    },
    nextDone: () => inFlight ?? new Promise<void>(() => undefined),
    close: async () => {
      await inFlight;
    },
  };
  return worker as unknown as DispatchWorker;
}

function startLedgerDispatching(): Promise<LedgerTestApp> {
  return startLedgerTestApp({
    ORDER_TRANSACTION_MODE: 'all',
    WEBHOOK_SECRET_KEYS: `t1:${randomBytes(32).toString('base64')}`,
    WEBHOOK_WORKERS: '1',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    UNKNOWN_INQUIRY_INTERVAL_MS: String(INQUIRY_INTERVAL_MS),
  });
}

describe('a stopping ledger', () => {
  it('stops its inquiries and its webhook dispatcher at the same moment: the stop lasts the longer of their works in progress, not the sum', async () => {
    const app = await startLedgerDispatching();
    let began = 0;
    try {
      await waitFor(async () => rounds.length > 0 && deliveries.length > 0, { timeoutMs: 10_000, what: 'an inquiry and a delivery in progress' });
      // The delivery began first, so it ends while the inquiry is still in progress.
      expect(deliveries[0].started).toBeLessThan(rounds[0].started);
    } finally {
      began = Date.now();
      await app.running.shutdown('test done');
    }
    const took = Date.now() - began;

    // Neither job took new work once the stop began...
    expect(deliveries.filter((delivery) => delivery.started >= began)).toEqual([]);
    expect(rounds.filter((round) => round.started >= began)).toEqual([]);
    // ...and the stop waited for the work in progress, not cut it off.
    expect(deliveries.every((delivery) => delivery.ended !== undefined)).toBe(true);
    expect(rounds.every((round) => round.ended !== undefined)).toBe(true);
    // The longer of the two (at most WORK_MS from the stop), not one after the other (up to 2 x WORK_MS).
    expect(took).toBeLessThan(WORK_MS * 1.25);
  });

  it('has no job of its own with a shutdown hook: each is stopped through BackgroundJobs with the others', async () => {
    const app = await startLedgerDispatching();
    try {
      const hooked: string[] = [];
      for (const module of app.running.app.get(ModulesContainer).values()) {
        for (const wrapper of module.providers.values()) {
          const instance = wrapper.instance as { beforeApplicationShutdown?: unknown } | undefined;
          if (typeof instance?.beforeApplicationShutdown === 'function') {
            hooked.push(instance.constructor.name);
          }
        }
      }
      // Terminus's hook returns at once (no gracefulShutdownTimeoutMs is set).
      expect(hooked.sort()).toEqual(['BackgroundJobs', 'HealthCheckExecutor']);
    } finally {
      await app.running.shutdown('test done');
    }
  });
});
