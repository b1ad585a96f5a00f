import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI_PATH } from './cli.js';

/** A long-running `loyalty-sync` child whose JSON log lines are collected as they arrive. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** The JSON log records, from stderr. */
  lines: Array<Record<string, unknown>>;
  /** stderr's other lines: the command's own sentences (errors, progress). */
  stderr: () => string;
  stdout: () => string;
  /** Resolves with the first log line matching `predicate` (or rejects if the process exits first). */
  waitForLine(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startCli(args: string[], env: Record<string, string | undefined>): CliProcess {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ predicate: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void; reject: (error: Error) => void }> = [];
  let stderr = '';
  let stdout = '';
  let buffered = '';
  let exitedWith: string | null = null;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  // Logs go to stderr, beside the command's own sentences, which are not JSON.
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const text of parts) {
      const line = logRecord(text);
      if (line === null) {
        stderr += `${text}\n`;
        continue;
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      exitedWith = String(code ?? signal);
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(`process exited (${code ?? signal}) before the expected log line; stderr: ${stderr}`));
      resolve({ code, signal });
    });
  });
  return {
    child,
    lines,
    stderr: () => stderr + (buffered.startsWith('{') ? '' : buffered),
    stdout: () => stdout,
    exited,
    waitForLine(predicate) {
      const found = lines.find(predicate);
      if (found) return Promise.resolve(found);
      // Waiting on a process that is already gone would hang until the test's timeout.
      if (exitedWith !== null) return Promise.reject(new Error(`process exited (${exitedWith}) before the expected log line; stderr: ${stderr}`));
      return new Promise((resolve, reject) => waiters.push({ predicate, resolve, reject }));
    },
  };
}

/** A pino record, or null for any other line of stderr. */
function logRecord(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{')) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}
