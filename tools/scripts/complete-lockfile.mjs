#!/usr/bin/env node
// Adds the lockfile entries npm could not write for other platforms' optional binaries.
//
// Why: this workplace's npm registry serves only some platforms' builds of packages such as
// @swc/core-darwin-arm64. `npm install` then writes a package-lock.json without their entries,
// and `npm ci` (CI, the Dockerfile) refuses that lock as "out of sync". An entry with the
// version and its os/cpu/libc lets `npm ci` accept the lock and skip the package on a platform
// it does not fit, as it would have anyway. Run after any `npm install` that changes the lock:
//   node tools/scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'sunos', 'netbsd', 'openbsd', 'aix'];
const CPU = ['arm64', 'x64', 'arm', 'ppc64', 's390x', 'ia32', 'loong64', 'riscv64', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  const libc = parts.some((p) => p === 'gnu' || p === 'gnueabihf') ? 'glibc' : parts.some((p) => p.startsWith('musl')) ? 'musl' : undefined;
  return os && cpu ? { os, cpu, libc } : undefined;
}

const added = [];
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const location = `${key ? `${key}/` : ''}node_modules/${name}`.replace(/^node_modules\/(.*node_modules\/)/, '$1');
    if (packages[`node_modules/${name}`] || packages[location]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[`node_modules/${name}`] = {
      version,
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(`${name}@${version}`);
  }
}
const [rootKey, ...rest] = Object.keys(packages);
lock.packages = Object.fromEntries([rootKey, ...rest.sort((a, b) => a.localeCompare(b))].map((k) => [k, packages[k]]));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length} entries: ${added.join(', ')}` : 'lockfile complete');
