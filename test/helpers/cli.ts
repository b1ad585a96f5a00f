import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI; `npm test` builds it before vitest runs. */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  /** Run as this user and group (the test process must be root), e.g. to meet a file it may not write. */
  user?: { uid: number; gid: number };
}

/** Runs `loyalty-sync ARGS` in a child process with a clean environment plus `env`. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      cwd: options.cwd,
      uid: options.user?.uid,
      gid: options.user?.gid,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** The pino records among a run's stderr lines (logs go to stderr, beside the command's sentences). */
export function logRecords(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** stderr without the log records: the sentences the command itself wrote. */
export function sentences(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !line.startsWith('{'))
    .join('\n');
}
