import type {
  BrowserPaymentPayerDataRepository,
  UnstrippedPayment,
} from '@gateway/browser-payment/data-access';
import { createLogger, type EraseOrderCommand } from '@gateway/platform';
import type { BrowserPaymentPayerDataErasure } from './erase-payer-data.use-case';
import { RetainBrowserPaymentPayerData } from './retain-payer-data.use-case';

/**
 * RetainBrowserPaymentPayerData over a fake read of the unstripped payments and a fake erasure:
 * which orders a run hands to the erasure, and how it counts what the erasure answered. What the
 * erasure strips and marks, with the real database, is apps/gateway's personal-data-retention.int-spec.ts.
 */
describe('RetainBrowserPaymentPayerData', () => {
  const NOW = Date.parse('2026-11-28T00:00:00Z');
  const RETENTION_MS = 600 * 86_400_000;
  const logger = createLogger({ service: 'browser-payment', level: 'silent' });

  function payment(n: number, orderId: string): UnstrippedPayment {
    return {
      timeInitiated: `2025-01-0${n} 00:00:00+00`,
      id: `00000000-0000-0000-0000-00000000000${n}`,
      merchantId: 'M1',
      orderId,
    };
  }

  it('hands each order to the erasure once a run, whichever of its payments names it, and counts a refused order unfinished', async () => {
    // o-1 has two finished payments; o-2 a finished one beside one under way (its erasure refuses it).
    const rows = [payment(1, 'o-1'), payment(2, 'o-2'), payment(3, 'o-1'), payment(4, 'o-3')];
    const repository = {
      unstrippedPayments: async (after: UnstrippedPayment | null) =>
        rows.slice(after === null ? 0 : rows.indexOf(after) + 1),
    };
    const answers: Record<string, BrowserPaymentPayerDataErasure['status']> = {
      'o-1': 'ERASED',
      'o-2': 'REFUSED',
      'o-3': 'UNCHANGED',
    };
    const commands: EraseOrderCommand[] = [];
    const erasure = {
      execute: async (command: EraseOrderCommand): Promise<BrowserPaymentPayerDataErasure> => {
        commands.push(command);
        const status = answers[command.orderId];
        return {
          merchantId: command.merchantId,
          orderId: command.orderId,
          status,
          payments: status === 'ERASED' ? 2 : 0,
          unfinished: status === 'REFUSED' ? 1 : 0,
        };
      },
    };
    const run = new RetainBrowserPaymentPayerData(
      repository as unknown as BrowserPaymentPayerDataRepository,
      erasure,
      { retentionMs: RETENTION_MS, pageSize: 100, pauseMs: 0 },
      logger,
      () => NOW,
    );

    expect(await run.run(() => false)).toEqual({ erased: 1, unchanged: 1, unfinished: 1, failed: 0 });
    const idleBefore = new Date(NOW - RETENTION_MS);
    expect(commands).toEqual(
      ['o-1', 'o-2', 'o-3'].map((orderId) => ({
        merchantId: 'M1',
        orderId,
        dryRun: false,
        retention: { idleBefore },
      })),
    );
  });
});
