// Lets plain `node` run a TypeScript tool script against the workspace's sources (no build
// first): each .ts file is compiled with the same swc options as the build and Jest, which
// also rewrite the `@gateway/*` aliases. Usage: node -r ./tools/scripts/register-ts.cjs script.ts
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');
const { swcOptions } = require('../swc-options.cjs');

require('reflect-metadata');

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swcOptions({ sourceMaps: false }), filename, swcrc: false });
  module._compile(code, filename);
};
