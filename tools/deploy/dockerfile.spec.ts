import { readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { DOCKERFILE, dockerignoreMatcher, Instruction, parseDockerfile, Stage } from '../../apps/gateway-e2e/src/support/dockerfile-emulator';

/**
 * docker/Dockerfile, linted (dockerfile-utils: syntax, instruction and flag errors) and
 * checked against what the platform team relies on. Its stages are run for real, outside
 * Docker, by apps/gateway-e2e/src/deployment/container-image.infra.e2e-spec.ts.
 */
describe('docker/Dockerfile', () => {
  const content = readFileSync(DOCKERFILE, 'utf8');
  const { stages } = parseDockerfile(content);
  const runtime = stages[stages.length - 1];
  const all = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);
  const stageNamed = (name: string) => stages.find((s) => s.name === name)!;

  it('passes the Dockerfile linter with no error or warning', () => {
    const problems = validate(content).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
  });

  it('builds in stages: a build stage, production dependencies, and the runtime last', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'production-dependencies', 'runtime']);
  });

  it('compiles once with the repository build script after a clean install of the lockfile', () => {
    const runs = all(stageNamed('build'), 'RUN').map((i) => i.text);
    expect(runs).toEqual([expect.stringMatching(/^npm ci\b.*--ignore-scripts/), 'node tools/scripts/build.mjs']);
  });

  it('gives the runtime production dependencies only, never an npm install', () => {
    const install = all(stageNamed('production-dependencies'), 'RUN').map((i) => i.text).join(' && ');
    expect(install).toMatch(/^npm ci .*--omit=dev/);
    expect(install).toContain('--ignore-scripts');
    expect(content).not.toMatch(/npm (install|i)\b/);
    const copies = all(runtime, 'COPY');
    expect(copies.find((c) => c.text.includes('node_modules'))?.flags.from).toBe('production-dependencies');
    expect(copies.find((c) => c.text.includes('dist'))?.flags.from).toBe('build');
  });

  it('is parameterised by app: ARG APP chooses the entry point', () => {
    expect(all(runtime, 'ARG').map((a) => a.text)).toContainEqual(expect.stringMatching(/^APP(=|$)/));
    expect(all(runtime, 'RUN').map((r) => r.text).join('\n')).toContain('dist/apps/${APP}/src/main.js');
    expect(all(runtime, 'ENTRYPOINT')[0].exec).toEqual(['node', 'main.js']);
  });

  it('runs as a numeric non-root user, so Kubernetes can enforce runAsNonRoot', () => {
    const users = all(runtime, 'USER');
    expect(users).toHaveLength(1);
    const [uid, gid] = users[0].text.split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    // Nothing after USER may need root.
    expect(runtime.instructions.slice(runtime.instructions.indexOf(users[0])).map((i) => i.keyword)).not.toContain('RUN');
  });

  it('writes nothing outside /tmp at run time (read-only root file system)', () => {
    expect(all(runtime, 'VOLUME')).toEqual([]);
    expect(all(runtime, 'ENV').map((e) => e.text).join(' ')).toMatch(/HOME=\/tmp/);
  });

  it('has an exec-form HEALTHCHECK with a timeout and a start period', () => {
    const [healthcheck] = all(runtime, 'HEALTHCHECK');
    expect(healthcheck.exec).toEqual(['node', 'healthcheck.cjs']);
    expect(healthcheck.flags).toMatchObject({ timeout: expect.any(String), interval: expect.any(String), 'start-period': expect.any(String) });
  });

  it('uses tagged base images, no ADD, and no secret in ENV or ARG', () => {
    for (const stage of stages) {
      expect(stage.image).not.toMatch(/:latest$/);
      expect(all(stage, 'ADD')).toEqual([]);
      const declared = [...all(stage, 'ENV'), ...all(stage, 'ARG')].map((i) => i.text).join(' ');
      expect(declared).not.toMatch(/PASSWORD|SECRET|PEPPER|DATABASE_URL|TOKEN|KEY=/i);
    }
    expect(parseDockerfile(content).globalArgs.NODE_IMAGE).toMatch(/^node:20[-.]/);
  });

  describe('.dockerignore', () => {
    const ignored = dockerignoreMatcher();

    it('keeps local data, secrets, installed and built output out of the build context', () => {
      for (const path of ['node_modules', 'libs/x/node_modules/y', 'dist/apps', '.data/secrets.json', '.env', '.git/config', 'test-artifacts/logs/a.log', 'tmp/e2e-state.json']) {
        expect([path, ignored(path)]).toEqual([path, true]);
      }
    });

    it('keeps everything the Dockerfile copies from the context', () => {
      const sources = stages.flatMap((s) => all(s, 'COPY').filter((c) => c.flags.from === undefined).flatMap((c) => c.text.split(/\s+/).slice(0, -1)));
      expect(sources.length).toBeGreaterThan(4);
      for (const source of [...sources, 'libs/platform/src/index.ts', 'tools/swc-options.cjs']) {
        expect([source, ignored(source)]).toEqual([source, false]);
      }
    });
  });
});
