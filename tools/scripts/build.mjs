#!/usr/bin/env node
// Compiles every app and lib to dist/ (same tree, CommonJS) with swc: fast, and the same
// options Jest uses. Type checking is separate (`npm run typecheck`). Test files are not built.
import { transformFile } from '@swc/core';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { swcOptions, root } = require('../swc-options.cjs');

const SKIP = /(\.spec|\.int-spec|\.e2e-spec|\.d)\.ts$/;
const out = path.join(root, 'dist');

async function* sources(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.endsWith('-e2e') || entry.name === 'testing') continue;
      yield* sources(full);
    } else if (entry.name.endsWith('.ts') && !SKIP.test(entry.name)) {
      yield full;
    }
  }
}

async function build() {
  const started = Date.now();
  await rm(out, { recursive: true, force: true });
  const files = [];
  for (const top of ['apps', 'libs']) {
    for await (const file of sources(path.join(root, top))) files.push(file);
  }
  const options = swcOptions();
  await Promise.all(
    files.map(async (file) => {
      const relative = path.relative(root, file);
      const target = path.join(out, relative.replace(/\.ts$/, '.js'));
      const result = await transformFile(file, {
        ...options,
        filename: file,
        sourceFileName: path.relative(path.dirname(target), file),
        // The maps name the sources without carrying them: stack traces need only the mappings
        // (--enable-source-maps), and the images (docker/Dockerfile copies dist/) carry no source.
        inlineSourcesContent: false,
        swcrc: false,
      });
      await mkdir(path.dirname(target), { recursive: true });
      const mapName = `${path.basename(target)}.map`;
      await writeFile(target, `${result.code}\n//# sourceMappingURL=${mapName}\n`);
      if (result.map) await writeFile(`${target}.map`, result.map);
    }),
  );
  console.log(`built ${files.length} files into dist/ in ${Date.now() - started} ms`);
}

build().catch((err) => {
  console.error(err);
  process.exit(1);
});
