// Lint is where the architecture is enforced: `@nx/enforce-module-boundaries` reads the Nx
// project tags (scope: which service owns a project; type: which layer it is) and fails on an
// import that crosses a boundary, such as the edge importing a token-vault entity.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const services = ['edge', 'token-vault', 'order-transaction', 'browser-payment', 'verification'];

const typeConstraints = (testing) => {
  const t = testing ? ['type:testing'] : [];
  return [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:domain', 'type:data-access', 'type:platform', 'type:contracts', 'type:util', ...t] },
    { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:domain', 'type:data-access', 'type:connector', 'type:platform', 'type:contracts', 'type:util', ...t] },
    { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:data-access', 'type:connector', 'type:platform', 'type:contracts', 'type:util', ...t] },
    { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:data-access', 'type:platform', 'type:contracts', 'type:util', ...t] },
    { sourceTag: 'type:connector', onlyDependOnLibsWithTags: ['type:connector', 'type:platform', 'type:contracts', 'type:util', ...t] },
    // The process runtime (config, logging, transports, health): depends on the wire contracts only.
    { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:util', ...t] },
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
    { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', ...t] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contracts', 'type:util'] },
    { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contracts', 'type:util'] },
  ];
};

const scopeConstraints = [
  ...services.map((s) => ({ sourceTag: `scope:${s}`, onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared'] })),
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  // The standalone profile is the one place that wires every service into one process;
  // its type:app tag still limits it to their feature modules.
  { sourceTag: 'scope:standalone', onlyDependOnLibsWithTags: ['scope:shared', ...services.map((s) => `scope:${s}`)] },
  { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
];

const boundaries = (testing) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [...scopeConstraints, ...typeConstraints(testing)],
  },
];

const testFiles = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/testing/**', '**/*-e2e/**'];

export default [
  { ignores: ['dist/**', 'node_modules/**', 'tmp/**', 'coverage/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(false),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    files: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': boundaries(true),
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['tools/**/*.ts', 'apps/admin/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
];
