// The built simulator in a child process of its own, so that serving pages costs the measured process
// no CPU. Started by a benchmark with startSimulatorChild(SIZE); run directly, it serves until its stdin ends.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

/** Starts the simulator (a size name, or a JSON size spec) with no rate limit; resolves to { url, key, stop }. */
export function startSimulatorChild(size) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, size], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`simulator child exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...JSON.parse(line), stop: () => child.stdin.end() }));
  });
}

if (process.argv[1] === SELF) {
  const size = process.argv[2];
  const { startSimulator } = await import('../dist/simulator/index.js');
  const sim = await startSimulator({ seed: 1, size: size.startsWith('{') ? JSON.parse(size) : size, rateLimit: null });
  process.stdout.write(`${JSON.stringify({ url: sim.url, key: sim.keys.full })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void sim.close().then(() => process.exit(0)));
}
