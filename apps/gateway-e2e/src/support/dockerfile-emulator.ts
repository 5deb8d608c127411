import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';

export const ROOT = path.resolve(__dirname, '../../../..');
export const DOCKERFILE = path.join(ROOT, 'docker/Dockerfile');
export const DOCKERIGNORE = path.join(ROOT, '.dockerignore');

export interface Instruction {
  keyword: string;
  /** `--from=build` and the like, by name. */
  flags: Record<string, string>;
  /** The arguments after the flags, continuation lines joined. */
  text: string;
  /** The exec form (`["node", "main.js"]`), when the arguments are a JSON array. */
  exec?: string[];
  line: number;
}

export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

export interface ParsedDockerfile {
  /** ARGs before the first FROM, with their defaults. */
  globalArgs: Record<string, string | undefined>;
  stages: Stage[];
}

export function parseDockerfile(content = readFileSync(DOCKERFILE, 'utf8')): ParsedDockerfile {
  const globalArgs: Record<string, string | undefined> = {};
  const stages: Stage[] = [];
  for (const raw of DockerfileParser.parse(content).getInstructions()) {
    // toString() keeps the flags (--from, --interval) and joins continuation lines.
    const instruction = toInstruction(raw.getKeyword(), raw.toString().slice(raw.getInstruction().length), raw.getRange().start.line + 1);
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.text.split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' ? name : String(stages.length), image, instructions: [] });
    } else if (stages.length === 0 && instruction.keyword === 'ARG') {
      const [name, value] = splitAssignment(instruction.text);
      globalArgs[name] = value;
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

function toInstruction(keyword: string, content: string, line: number): Instruction {
  const flags: Record<string, string> = {};
  let text = content.replace(/\\\r?\n\s*/g, ' ').trim();
  for (let flag = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(text); flag; flag = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(text)) {
    flags[flag[1]] = flag[2] ?? 'true';
    text = text.slice(flag[0].length);
  }
  let exec: string[] | undefined;
  if (text.startsWith('[')) {
    exec = JSON.parse(text) as string[];
  } else if (keyword === 'HEALTHCHECK' && text.startsWith('CMD [')) {
    exec = JSON.parse(text.slice(4)) as string[];
  }
  return { keyword: keyword.toUpperCase(), flags, text, exec, line };
}

function splitAssignment(text: string): [string, string | undefined] {
  const at = text.indexOf('=');
  return at < 0 ? [text.trim(), undefined] : [text.slice(0, at).trim(), unquote(text.slice(at + 1).trim())];
}

function unquote(value: string): string {
  return /^".*"$/.test(value) ? value.slice(1, -1) : value;
}

/** `KEY=value KEY2="value 2"` (ENV and LABEL). */
function assignments(text: string): [string, string][] {
  return [...text.matchAll(/([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|\S+)/g)].map((m) => [m[1], unquote(m[2])]);
}

function substitute(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string, b: string) => vars[a ?? b] ?? '');
}

/** .dockerignore's patterns as Docker reads them: `**`, `*`, `?`, `!` exceptions, parents. */
export function dockerignoreMatcher(content = readFileSync(DOCKERIGNORE, 'utf8')): (relativePath: string) => boolean {
  const rules = content
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const negate = line.startsWith('!');
      const pattern = path.posix.normalize((negate ? line.slice(1) : line).replace(/^\/+/, ''));
      const source = pattern
        .split('/')
        .map((part) => (part === '**' ? '(?:.*)' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
        .join('/')
        .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
      return { negate, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (relativePath) => {
    let ignored = false;
    for (const rule of rules) {
      if (rule.regex.test(relativePath)) {
        ignored = !rule.negate;
      }
    }
    return ignored;
  };
}

/** What a built image would run: its file system (a folder here), user, environment and commands. */
export interface EmulatedImage {
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  entrypoint: string[];
  cmd: string[];
  healthcheck?: string[];
}

/**
 * Runs a Dockerfile's stages without a Docker engine, to check their logic: each stage's file
 * system is a folder, COPY copies (honouring .dockerignore), RUN runs the same shell command
 * in the stage's working directory with its ARGs and ENV. Base images are this machine's
 * Node.js (the same major as the image's). Stages are built once and reused by later targets
 * that need them, as BuildKit's cache does.
 */
export class DockerfileEmulator {
  private readonly parsed: ParsedDockerfile;
  private readonly built = new Map<string, EmulatedImage>();
  private readonly ignored: (relativePath: string) => boolean;

  constructor(
    private readonly outDir: string,
    private readonly log: (line: string) => void = () => undefined,
    private readonly context = ROOT,
  ) {
    this.parsed = parseDockerfile(readFileSync(path.join(context, 'docker/Dockerfile'), 'utf8'));
    this.ignored = dockerignoreMatcher(readFileSync(path.join(context, '.dockerignore'), 'utf8'));
  }

  build(target: string, buildArgs: Record<string, string> = {}): EmulatedImage {
    const stage = this.parsed.stages.find((s) => s.name === target);
    if (!stage) {
      throw new Error(`no stage ${target}`);
    }
    const declared = stage.instructions.filter((i) => i.keyword === 'ARG').map((i) => splitAssignment(i.text)[0]);
    const key = `${target}:${JSON.stringify(declared.map((name) => buildArgs[name]))}`;
    const cached = this.built.get(key);
    if (cached) {
      return cached;
    }
    const image = this.run(stage, buildArgs, key.replace(/[^A-Za-z0-9_.-]+/g, '_'));
    this.built.set(key, image);
    return image;
  }

  /**
   * The build's npm cache: a hard-linked copy of this machine's, so installs stay offline and
   * fast while anything a RUN step deletes is deleted from the copy only.
   */
  private npmCache(): string {
    const cache = path.join(this.outDir, 'npm-cache');
    if (!existsSync(cache)) {
      mkdirSync(cache, { recursive: true });
      const source = path.join(process.env.HOME ?? '/root', '.npm', '_cacache');
      if (existsSync(source)) {
        execFileSync('cp', ['-al', source, path.join(cache, '_cacache')]);
      }
    }
    return cache;
  }

  private run(stage: Stage, buildArgs: Record<string, string>, folder: string): EmulatedImage {
    const root = path.join(this.outDir, folder);
    mkdirSync(root, { recursive: true });
    const image: EmulatedImage = { root, workdir: '/', env: {}, entrypoint: [], cmd: [] };
    const args: Record<string, string | undefined> = {};
    const vars = () => ({ ...args, ...image.env });
    const host = (containerPath: string, base = image) => path.join(base.root, path.posix.resolve(image.workdir, containerPath));
    for (const instruction of stage.instructions) {
      const text = substitute(instruction.text, vars());
      switch (instruction.keyword) {
        case 'ARG': {
          const [name, fallback] = splitAssignment(instruction.text);
          args[name] = buildArgs[name] ?? fallback ?? this.parsed.globalArgs[name];
          break;
        }
        case 'ENV':
          for (const [name, value] of assignments(instruction.text)) image.env[name] = substitute(value, vars());
          break;
        case 'WORKDIR':
          image.workdir = path.posix.resolve(image.workdir, text);
          mkdirSync(host('.'), { recursive: true });
          break;
        case 'COPY': {
          const parts = text.split(/\s+/);
          const destination = parts.pop()!;
          const from = instruction.flags.from ? this.build(instruction.flags.from, buildArgs) : undefined;
          for (const source of parts) {
            const target = destination.endsWith('/') || parts.length > 1 ? path.join(host(destination), path.basename(source)) : host(destination);
            this.copy(source, target, from);
          }
          break;
        }
        case 'RUN':
          this.log(`[${stage.name}] RUN ${text}`);
          execFileSync('sh', ['-c', instruction.text], {
            cwd: host('.'),
            env: {
              PATH: process.env.PATH ?? '',
              HOME: process.env.HOME ?? '/tmp',
              // A build container has a cache of its own: `npm cache clean` in a RUN step must
              // not empty the cache of the developer (or of other builds) on this machine.
              npm_config_cache: this.npmCache(),
              ...stringsOf(args),
              ...image.env,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
            maxBuffer: 64 * 1024 * 1024,
          });
          break;
        case 'USER':
          image.user = text;
          break;
        case 'ENTRYPOINT':
          image.entrypoint = instruction.exec ?? ['sh', '-c', text];
          break;
        case 'CMD':
          image.cmd = instruction.exec ?? ['sh', '-c', text];
          break;
        case 'HEALTHCHECK':
          image.healthcheck = instruction.exec;
          break;
        default:
          break; // LABEL, EXPOSE: metadata only
      }
    }
    image.workdir = host('.');
    return image;
  }

  private copy(source: string, target: string, from?: EmulatedImage): void {
    mkdirSync(path.dirname(target), { recursive: true });
    if (from) {
      const origin = path.join(from.root, source);
      // Hard links: as fast as a layer reference, and nothing writes to them afterwards.
      execFileSync('cp', ['-al', origin, target]);
      return;
    }
    const origin = path.join(this.context, source);
    if (!existsSync(origin) || this.ignored(path.posix.normalize(source))) {
      throw new Error(`COPY ${source}: not in the build context (missing or excluded by .dockerignore)`);
    }
    cpSync(origin, target, {
      recursive: true,
      filter: (file) => !this.ignored(path.relative(this.context, file).split(path.sep).join('/')) || file === origin,
    });
  }
}

function stringsOf(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
