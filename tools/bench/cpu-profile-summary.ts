/**
 * The top costs of a V8 CPU profile (`node --cpu-prof`): self time per function and per
 * package. `npm run bench -- --cpu-prof` leaves one profile per service process under
 * tmp/bench/cpu-profiles/; summarise them with
 *   node -r ./tools/scripts/register-ts.cjs tools/bench/cpu-profile-summary.ts <file.cpuprofile>...
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface Cost {
  name: string;
  /** Share of the samples, in percent. */
  percent: number;
}

/** Where a frame's code lives: an npm package, a workspace project, Node itself, or V8. */
export function ownerOf(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const project = /\/(?:dist\/)?((?:libs|apps)\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (project) return project[1].replace(/\/src$/, '');
  if (url.startsWith('node:')) return 'node';
  return url === '' ? '(v8)' : path.basename(url);
}

/** Self time by function (name, file and line) and by owner, highest first. */
export function topCosts(profile: CpuProfile, limit = 15): { functions: Cost[]; owners: Cost[]; idlePercent: number } {
  const hits = new Map<number, number>();
  for (const id of profile.samples ?? []) {
    hits.set(id, (hits.get(id) ?? 0) + 1);
  }
  const total = profile.samples?.length ?? profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let idle = 0;
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? node.hitCount ?? 0;
    if (count === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += count;
      continue;
    }
    const name = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + count);
    const owner = ['(garbage collector)', '(program)'].includes(functionName) ? functionName : ownerOf(url);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + count);
  }
  const rank = (costs: Map<string, number>) =>
    [...costs]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, count]) => ({ name, percent: total > 0 ? Math.round((1000 * count) / total) / 10 : 0 }));
  return { functions: rank(byFunction), owners: rank(byOwner), idlePercent: total > 0 ? Math.round((1000 * idle) / total) / 10 : 0 };
}

if (require.main === module) {
  for (const file of process.argv.slice(2)) {
    const { functions, owners, idlePercent } = topCosts(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    console.log(`\n${file} (idle ${idlePercent}%)`);
    console.log('  by owner:   ', owners.map((c) => `${c.name} ${c.percent}%`).join(', '));
    console.log('  by function:');
    for (const c of functions) console.log(`    ${c.percent.toString().padStart(5)}%  ${c.name}`);
  }
}
