// Replays the Dockerfile without a Docker engine: each stage's COPY and RUN steps run in a clean
// temporary folder (apt-get, user and symlink steps are the image's business and are skipped),
// then the runtime stage's ENTRYPOINT is started with the image's ENV, as `--help` and as `demo`.
// It proves the recipe builds and that the production-only install runs the product.
import { execSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(new URL('..', import.meta.url).pathname);
const lines = readFileSync(join(repo, 'Dockerfile'), 'utf8')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

const root = mkdtempSync(join(tmpdir(), 'loyalty-sync-image-'));
const stages = new Map();
let stage;
const env = {};
let entrypoint = [];

const skip = (command) => /apt-get|chown|ln -s|useradd|mkdir -p \/data/.test(command);

for (const line of lines) {
  const [instruction, ...rest] = line.split(/\s+/);
  const args = rest.join(' ');
  switch (instruction.toUpperCase()) {
    case 'FROM': {
      const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.size}`;
      stage = { name, dir: join(root, name), workdir: '/' };
      stages.set(name, stage);
      console.log(`replay: stage ${name} (${args.split(/\s+/)[0]}) in ${stage.dir}`);
      break;
    }
    case 'WORKDIR':
      stage.workdir = args;
      break;
    case 'COPY': {
      const from = /--from=(\S+)/.exec(args)?.[1];
      const parts = args.replace(/--from=\S+/, '').trim().split(/\s+/);
      const dest = parts.pop();
      const target = join(stage.dir, dest.startsWith('/') ? dest : join(stage.workdir, dest));
      for (const source of parts) {
        const origin = from ? join(stages.get(from).dir, source) : join(repo, source);
        const into = parts.length > 1 || dest.endsWith('/') ? join(target, source.split('/').pop()) : target;
        cpSync(origin, into, { recursive: true });
      }
      break;
    }
    case 'RUN':
      if (skip(args)) {
        console.log(`replay: skipped (image-only): ${args}`);
        break;
      }
      console.log(`replay: RUN ${args}`);
      execSync(args, { cwd: join(stage.dir, stage.workdir), stdio: 'inherit', env: { ...process.env, ...env } });
      break;
    case 'ENV':
      for (const match of args.matchAll(/(\w+)=(\S+)/g)) env[match[1]] = match[2];
      break;
    case 'ENTRYPOINT':
      entrypoint = JSON.parse(args);
      break;
    default:
      break;
  }
}

const app = join(stage.dir, stage.workdir);
const data = join(root, 'data');
const runEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env, LOYALTY_DB: join(data, 'mirror.db'), LOYALTY_EXPORT_DIR: join(data, 'exports') };
const cli = entrypoint[0] === 'loyalty-sync' ? [join(app, 'dist/cli/bin.js')] : entrypoint;

function run(args) {
  console.log(`replay: ${entrypoint.join(' ')} ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [...cli, ...args], { cwd: data.replace(/data$/, ''), env: runEnv, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`replay: "${args.join(' ')}" exited ${result.status}`);
    process.exit(1);
  }
}

run(['--help']);
run(['demo', '--dir', data]);
rmSync(root, { recursive: true, force: true });
console.log('replay: the Dockerfile recipe builds and runs');
