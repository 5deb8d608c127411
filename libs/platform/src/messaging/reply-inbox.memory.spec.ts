import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Run in a Node process of its own, with `--expose-gc`: in a Jest worker the heap also holds
 * whatever the worker's other spec files left (their modules, a marking already under way), and
 * the old space grew by 8.9 MB there in a full unit run for reasons of its own.
 */
const MEASURE = `
  const { getHeapSpaceStatistics } = require('node:v8');
  const { ReplyInbox } = require('./libs/platform/src/messaging/reply-inbox');
  const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_used_size;

  // A connection that records the reply subject of each request and delivers replies to the inbox.
  const replySubjects = [];
  let deliver = () => undefined;
  const connection = {
    subscribe: (_subject, options) => {
      deliver = (msg) => options.callback(null, msg);
      return { closed: new Promise(() => undefined) };
    },
    publish: (_subject, _data, options) => replySubjects.push(options.reply),
  };
  const replyToOldest = (payload) => deliver({ subject: replySubjects.shift(), data: new Uint8Array(1), payload });

  (async () => {
    const inbox = new ReplyInbox(connection);
    // The inbox and what it holds are old by now, as in a service that has run a while.
    gc({ type: 'major', execution: 'sync' });
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpaceUsed();

    // 2,000 requests, four in flight at a time as under load, each reply with 4 KB of young objects.
    let answered = 0;
    for (let i = 0; i < 2000; i++) {
      void inbox.request('svc.v1', '{}', undefined, 60000).then(() => answered++);
      if (i >= 3) {
        replyToOldest(new Array(512).fill(i));
      }
    }
    for (let i = 0; i < 3; i++) {
      replyToOldest(null);
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc({ type: 'minor', execution: 'sync' });
    gc({ type: 'minor', execution: 'sync' });
    process.stdout.write(JSON.stringify({ answered, promoted: oldSpaceUsed() - before }));
    process.exit(0);
  })();
`;

describe('ReplyInbox memory', () => {
  it('lets the replies it delivered die young: scavenges do not promote them to the old generation', () => {
    const output = execFileSync(process.execPath, ['--expose-gc', '-r', './tools/scripts/register-ts.cjs', '-e', MEASURE], { cwd: ROOT, encoding: 'utf8' });
    const { answered, promoted } = JSON.parse(output) as { answered: number; promoted: number };

    expect(answered).toBe(2_000);
    expect(promoted).toBeLessThan(1_000_000);
  });
});
