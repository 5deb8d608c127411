#!/usr/bin/env node
// `npm start`: the standalone gateway from a fresh clone. Installs dependencies if they are
// missing, builds if the sources changed since the last build, then runs the standalone
// profile in the foreground (Ctrl-C stops it, then its embedded Postgres, which runs in a process
// group of its own so that Ctrl-C reaches the gateway only).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const main = path.join(root, 'dist/apps/gateway/src/main.js');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

if (!existsSync(path.join(root, 'node_modules/.package-lock.json'))) {
  console.log('Installing dependencies (first run)...');
  // `npm install`, not `npm ci`: this registry lacks other platforms' optional packages (e.g.
  // @swc/core-darwin-*), which `npm ci` counts as a lock file out of sync.
  run(npm, ['install', '--no-audit', '--no-fund']);
}
const built = existsSync(main) ? statSync(main).mtimeMs : 0;
if (built < Math.max(newestSource(path.join(root, 'apps')), newestSource(path.join(root, 'libs')))) {
  run(process.execPath, [path.join(root, 'tools/scripts/build.mjs')]);
}

const gateway = spawn(process.execPath, [main], { cwd: root, stdio: 'inherit', env: process.env });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => gateway.kill(signal));
}
gateway.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
