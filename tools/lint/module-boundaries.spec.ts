import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * The architecture's boundaries are enforced, not just drawn: lint rejects an import that
 * crosses one. Each case lints a would-be source file in place, so the rule sees the real
 * project graph and tags.
 */
describe('module boundaries', () => {
  beforeAll(() => {
    // The boundary rule reads the cached Nx project graph; make sure it exists and is current.
    execFileSync(path.join(root, 'node_modules/.bin/nx'), ['show', 'projects'], { cwd: root, stdio: 'ignore' });
  });

  /** Lints `source` as if it were `file`, with the project's own ESLint command and config. */
  async function boundaryErrors(file: string, source: string): Promise<string[]> {
    const run = spawnSync(
      path.join(root, 'node_modules/.bin/eslint'),
      ['--stdin', '--stdin-filename', path.join(root, file), '--format', 'json'],
      { cwd: root, input: source, encoding: 'utf8' },
    );
    const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string; message: string }[] }[];
    return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  }

  it('stops the edge from importing a token-vault entity', async () => {
    const errors = await boundaryErrors(
      'libs/edge/domain/src/probe.ts',
      "import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';\nexport const probe = TOKEN_VAULT_SCHEMA;\n",
    );
    expect(errors.join('\n')).toMatch(/scope:edge/);
  });

  it('stops a service from importing another service\'s domain', async () => {
    const errors = await boundaryErrors(
      'libs/verification/feature/src/probe.ts',
      "import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';\nexport const probe = ORDER_TRANSACTION_SCHEMA;\n",
    );
    expect(errors).not.toHaveLength(0);
  });

  it('stops a shared lib from importing a service lib', async () => {
    const errors = await boundaryErrors(
      'libs/money/src/probe.ts',
      "import { EDGE_SCHEMA } from '@gateway/edge/data-access';\nexport const probe = EDGE_SCHEMA;\n",
    );
    expect(errors).not.toHaveLength(0);
  });

  it('stops an app from importing another app', async () => {
    const errors = await boundaryErrors(
      'apps/token-vault/src/probe.ts',
      "import '../../api-edge/src/main';\n",
    );
    expect(errors).not.toHaveLength(0);
  });

  it('lets a service use its own data-access lib and the shared contracts', async () => {
    const errors = await boundaryErrors(
      'libs/edge/domain/src/probe.ts',
      "import { EDGE_SCHEMA } from '@gateway/edge/data-access';\nimport { SUBJECTS } from '@gateway/contracts';\nexport const probe = [EDGE_SCHEMA, SUBJECTS];\n",
    );
    expect(errors).toEqual([]);
  });
});
