import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ls-cli-'));
const env = { LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };

function configFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('the command line', () => {
  it('lists every command of the design in --help', async () => {
    const result = await runCli(['--help'], { env });
    expect(result.code).toBe(0);
    for (const command of ['sync', 'push', 'export', 'once', 'run', 'status', 'whoami', 'queue', 'simulate', 'demo']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it('answers --help for every command and queue subcommand with its usage and exit 0', async () => {
    const commands = [
      ...['sync', 'push', 'export', 'once', 'run', 'status', 'whoami', 'simulate', 'demo', 'queue'].map((c) => [c]),
      ...['add-points', 'update-review', 'delete-review', 'create-order', 'claim-reward', 'import', 'list', 'retry', 'cancel'].map((c) => ['queue', c]),
    ];
    for (const command of commands) {
      const result = await runCli([...command, '--help'], { env });
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, command.join(' ')).toMatch(new RegExp(`^Usage: loyalty-sync ${command.join(' ')}`));
    }
  });

  it('exits 2 with one sentence for an unknown command', async () => {
    const result = await runCli(['synk'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'loyalty-sync: Unknown command "synk"; expected one of: sync, push, export, once, run, status, verify, balances, report, whoami, queue, state, simulate, demo.',
    );
  });

  const badConfigs: Array<[string, unknown, string]> = [
    ['wrong type', { api: { requestTimeoutMs: 'soon' } }, 'api.requestTimeoutMs'],
    ['unknown key', { api: { timeout: 5 } }, 'api.timeout'],
    ['bad cron', { schedule: { export: '61 * * * *' } }, 'schedule.export'],
    ['non-http base URL', { api: { baseUrl: 'file:///etc/passwd' } }, 'api.baseUrl'],
  ];
  for (const [what, content, key] of badConfigs) {
    it(`exits 2 on a config with a ${what}, naming ${key}, without a stack trace`, async () => {
      const file = configFile(`${what.replace(/\W/g, '-')}.json`, content);
      const result = await runCli(['--config', file, 'status'], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`"${key}"`);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('exits 2 with one sentence naming the variable for a bad value of a setting from the environment', async () => {
    const result = await runCli(['status'], { env: { ...env, LOYALTY_API__PAGE_SIZE: 'abc' } });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('loyalty-sync: LOYALTY_API__PAGE_SIZE is "abc"; expected a number (config key "api.pageSize").');
  });
});
