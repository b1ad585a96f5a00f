// npm run bench: every benchmark in turn, each in its own process so one's memory and CPU do not
// colour the next. Figures and targets are printed by the benchmarks themselves.
// BENCH=sync,export npm run bench runs a subset. The soak (a long-lived `run`, 30 minutes by default)
// runs only when named: BENCH=soak SOAK_MINUTES=8 npm run bench; so does the Delta bench, which takes several
// minutes: BENCH=delta npm run bench, the deep refresh bench, paced by the rate limit (2 minutes): BENCH=deep, and
// the state in the bucket's costs on the 1M mirror (a minute and a half): BENCH=state, and the points ledger's
// builds on the 1M mirror: BENCH=ledger.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DEFAULT = ['simulator', 'sync', 'push', 'export', 'publish', 'unreachable', 'hostile', 'metrics', 'verify'];
const ALL = [...DEFAULT, 'delta', 'deep', 'soak', 'state', 'ledger'];
const chosen = process.env.BENCH ? process.env.BENCH.split(',').map((name) => name.trim()) : DEFAULT;
const unknown = chosen.filter((name) => !ALL.includes(name));
if (unknown.length > 0) {
  console.error(`BENCH names ${unknown.join(', ')}; expected some of ${ALL.join(', ')}.`);
  process.exit(2);
}

let failed = 0;
for (const name of chosen) {
  console.log(`\n=== ${name} ===`);
  const script = fileURLToPath(new URL(`./${name}.bench.mjs`, import.meta.url));
  const result = spawnSync(process.execPath, ['--expose-gc', script], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    console.log(`${name}: exited ${result.status ?? result.signal}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
