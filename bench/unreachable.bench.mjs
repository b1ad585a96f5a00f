// How long `loyalty-sync sync` and `push` take to give up when the API's port is closed, as a user would
// first meet it (default config: retry budget api.retry.maxElapsedMs = 5 minutes per request).
// Before streams were skipped after the first unreachable one, a sync took minutes (about 3 in issue 13;
// 136.5 s measured here at commit 22a05b4, the one before the change). Target: under 10% of that.
// Run after `npm run build`: node bench/unreachable.bench.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const BEFORE_SECONDS = 136.5;

const port = await new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port: bound } = server.address();
    server.close(() => resolve(bound));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'ls-bench-unreachable-'));
const env = { PATH: process.env.PATH, LOYALTY_API_KEY: 'bench', LOYALTY_BASE_URL: `http://127.0.0.1:${port}`, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'error' };

function timed(args) {
  const started = performance.now();
  const result = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
  return { seconds: (performance.now() - started) / 1000, code: result.status, stderr: result.stderr.trim() };
}

try {
  const sync = timed(['sync']);
  console.log(`sync against a closed port: exit ${sync.code} after ${sync.seconds.toFixed(1)} s; ${(sync.seconds / BEFORE_SECONDS).toFixed(3)}x the ${BEFORE_SECONDS} s it took before (target < 0.1)`);
  console.log(`  ${sync.stderr}`);
  spawnSync(process.execPath, [CLI, 'queue', 'add-points', '--customer', 'c-1', '--points', '1', '--reason', 'bench'], { env });
  const push = timed(['push']);
  console.log(`push against a closed port: exit ${push.code} after ${push.seconds.toFixed(1)} s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
