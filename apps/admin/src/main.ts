import 'reflect-metadata';
import { runAdminCli } from './admin-cli';

// The admin image runs this as its container's PID 1 (`node main.js`, docker/Dockerfile), and the
// kernel gives PID 1 no default action for a signal it has no handler for: the migration Job's
// `provision-database` deleted with its pod, or a Ctrl-C under `kubectl run -it`, would be ignored
// until the grace period's SIGKILL. The default action's exit status, by hand. A standalone
// command that started the embedded Postgres has its own handler (stop it, then exit the same
// way): that one goes first.
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  });
}

runAdminCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
