// One swc configuration for the build (tools/scripts/build.mjs) and for Jest, so tests run the
// same emitted code as production: legacy decorators with metadata (Nest DI, class-validator,
// TypeORM) and the `@gateway/*` aliases rewritten to relative paths.
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function swcOptions({ sourceMaps = true } = {}) {
  return {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: root,
      paths: { '@gateway/*': ['./libs/*/src/index.ts'] },
    },
    module: { type: 'commonjs' },
    sourceMaps,
  };
}

module.exports = { swcOptions, root };
