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
  /**
   * Run without the power to override file permissions, so that a file's mode binds the command even when
   * the tests run as root (as in CI): root keeps its identity, and with it the Node in its cache folder.
   */
  boundByFileModes?: boolean;
}

/** Under root, `setpriv` drops the capabilities that let root read and write any file whatever its mode. */
const WITHOUT_FILE_OVERRIDE = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-dac_override,-dac_read_search'];

/** Runs `loyalty-sync ARGS` in a child process with a clean environment plus `env`. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, CLI_PATH, ...args];
    if (options.boundByFileModes && process.getuid?.() === 0) command.unshift(...WITHOUT_FILE_OVERRIDE);
    const [file = process.execPath, ...rest] = command;
    const child = spawn(file, rest, {
      cwd: options.cwd,
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
