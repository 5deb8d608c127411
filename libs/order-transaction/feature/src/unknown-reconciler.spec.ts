import { setTimeout as sleep } from 'node:timers/promises';
import type { InquireUnknown, InquiryRound } from '@gateway/order-transaction/domain';
import { AppLogger, BackgroundJobs, createLogger } from '@gateway/platform';
import { UnknownReconciler } from './unknown-reconciler';

const silent: AppLogger = createLogger({ service: 'order-transaction', level: 'silent' });

describe('UnknownReconciler on shutdown', () => {
  it('has the round in progress ask no more inquiries, so shutdown waits for one inquiry, not a whole batch', async () => {
    // A round of 20 inquiries of 50 ms each (an acquirer slow to answer), asking `stopping` before each.
    let asked = 0;
    const inquire = {
      round: async (_now: Date, stopping: () => boolean): Promise<InquiryRound> => {
        for (let i = 0; i < 20 && !stopping(); i++) {
          asked += 1;
          await sleep(50);
        }
        return { claimed: 20, resolved: asked, retried: 0, dropped: 0, released: 20 - asked };
      },
    } as unknown as InquireUnknown;
    const reconciler = new UnknownReconciler(inquire, 60_000, silent, new BackgroundJobs(silent));

    const round = reconciler.runNow();
    await sleep(75);
    const started = Date.now();
    await reconciler.stop();

    expect(Date.now() - started).toBeLessThan(200);
    expect(asked).toBe(2);
    expect(await round).toMatchObject({ resolved: 2 });
  });
});
