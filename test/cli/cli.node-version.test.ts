import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { unsupportedNodeMessage } from '../../src/cli/nodeVersion.js';
import { CLI_PATH } from '../helpers/cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

function versionOf(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * A Node.js older than 22: the machine's own where it ships one (these machines ship Node 20),
 * else Node 20 fetched from the npm registry into the cache folder by scripts/install-node.sh.
 */
function oldNode(): string {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (existsSync(candidate) && Number(versionOf(candidate).slice(1).split('.')[0]) < 22) return candidate;
  }
  const exports = execFileSync('bash', ['scripts/install-node.sh', '20'], { cwd: REPO, encoding: 'utf8' });
  const bin = /PATH="([^":]+):/.exec(exports)?.[1];
  if (bin === undefined) throw new Error(`scripts/install-node.sh 20 printed no PATH: ${exports}`);
  return `${bin}/node`;
}

describe('the CLI on an unsupported Node.js', () => {
  it('exits 2 with one sentence naming the version it found and the one it needs, before loading the native driver', () => {
    const node = oldNode();
    const version = versionOf(node).slice(1);
    const result = spawnSync(node, [CLI_PATH, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    // better-sqlite3 13 would end Node 20 with SIGSEGV; the check must come first.
    expect(result.signal).toBeNull();
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([`loyalty-sync needs Node.js 22.19 or newer (24 LTS recommended), but this is Node.js ${version}.`]);
  });

  it('accepts Node 22.19 and later, and refuses every older release', () => {
    expect(unsupportedNodeMessage('24.21.0')).toBeUndefined();
    expect(unsupportedNodeMessage('22.19.0')).toBeUndefined();
    expect(unsupportedNodeMessage('26.0.0')).toBeUndefined();
    expect(unsupportedNodeMessage('22.18.1')).toMatch(/needs Node\.js 22\.19 or newer .* this is Node\.js 22\.18\.1\.$/);
    expect(unsupportedNodeMessage('v20.20.2')).toMatch(/this is Node\.js 20\.20\.2\.$/);
  });

  it('runs on the Node.js that runs the tests', () => {
    const result = spawnSync(process.execPath, [CLI_PATH, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/loyalty-sync/);
  });
});
