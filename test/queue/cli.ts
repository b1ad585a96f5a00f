import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI: child-process tests run what a user runs (`npm test` builds first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

export interface CliEnv {
  baseUrl: string;
  apiKey: string;
  dbPath: string;
}

export function cliEnv(env: CliEnv): NodeJS.ProcessEnv {
  return { ...process.env, LOYALTY_BASE_URL: env.baseUrl, LOYALTY_API_KEY: env.apiKey, LOYALTY_DB: env.dbPath, LOG_LEVEL: 'silent' };
}

export function startCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs the CLI to its end and returns its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
