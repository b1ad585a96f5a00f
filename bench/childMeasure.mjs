// One measurement in a process of its own, so one run's memory and JIT state do not colour the next.
import { spawn } from 'node:child_process';

/** Runs `node SCRIPT --measure ...args` and resolves to the JSON of the last line it prints. */
export function measureInChild(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--measure', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${args[0]} measurement exited with ${code}: ${out}`));
      else resolve(JSON.parse(line));
    });
  });
}
