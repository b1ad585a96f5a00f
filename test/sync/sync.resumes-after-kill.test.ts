import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { Rng } from '../../src/simulator/random.js';
import { checkpointProblems, requestsByStream, resumeCost, resumeWork, type StreamCounts } from '../helpers/checkpoints.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';

const ROUNDS = 5;
/** `api.pageSize`'s default: each list of the small program is two to six pages. */
const PAGE_SIZE = 500;
let sim: SimulatorHandle | undefined;
afterAll(async () => {
  await sim?.close();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `loyalty-sync sync` on `dbPath`; SIGKILLed once it has stored `killAfterPages` pages, unless it ended first. */
async function runSync(env: Record<string, string>, dbPath: string, killAfterPages?: number): Promise<Exit> {
  const run = startCli(['sync'], { ...env, LOYALTY_DB: dbPath, LOG_LEVEL: 'debug' });
  if (killAfterPages !== undefined) {
    const storedPages = (): number => run.lines.filter((line) => line.msg === 'page stored').length;
    // The pages are logged as their group is stored, before its commit: many kills land inside a transaction.
    const reached = await run.waitForLine(() => storedPages() >= killAfterPages).then(
      () => true,
      () => false,
    );
    if (reached) run.child.kill('SIGKILL');
  }
  return run.exited;
}

function withMirror<T>(dbPath: string, use: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(dbPath);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

const sum = (counts: StreamCounts): number => Object.values(counts).reduce((total, n) => total + n, 0);

it(`a first sync killed with SIGKILL at seeded pages resumes from its checkpoints: each costs the pages left plus the overlap, and ends equal to the truth`, async () => {
  // A page takes longer to answer than the storage thread's idle commit (20 ms), so each page's checkpoint
  // commits before the next page comes: a kill leaves a cursor to go on from.
  sim = await startSimulator({ seed: 13, size: 'small', faults: { latencyMs: 40 } });
  const dir = tempDir('loyalty-crash-');
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ api: { pageSize: PAGE_SIZE, requestsPerSecond: 1000, burst: 50, retry: { attempts: 5, minDelayMs: 1, maxDelayMs: 20, maxElapsedMs: 30000 } } }));
  const env = { PATH: process.env.PATH ?? '', LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_CONFIG: configPath };
  const random = new Rng(2613);

  // What an incremental run re-reads of each list on a complete mirror (the overlap), measured on a scratch mirror;
  // its first run, on an empty mirror, is the model's check that a stream never begun reads its whole list.
  const scratch = join(dir, 'scratch.db');
  const allToRead = withMirror(scratch, (db) => resumeWork(db, sim!, PAGE_SIZE));
  let before = sim.stats();
  expect(await runSync(env, scratch)).toMatchObject({ code: 0 });
  const firstRun = requestsByStream(before, sim.stats());
  before = sim.stats();
  expect(await runSync(env, scratch)).toMatchObject({ code: 0 });
  const overlap = requestsByStream(before, sim.stats());
  expect(firstRun).toEqual(resumeCost(allToRead, overlap));

  const history: string[] = [];
  let kills = 0;
  // Kills that left a stream in the middle of its first read, whose next run must go on from the cursor.
  let resumePoints = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const dbPath = join(dir, `mirror-${round}.db`);
    // One or two kills per mirror: the second falls in a run that is itself a resume.
    for (let killsLeft = random.int(1, 2); ; killsLeft--) {
      const expected = withMirror(dbPath, (db) => resumeCost(resumeWork(db, sim!, PAGE_SIZE), overlap));
      const killAfterPages = killsLeft > 0 ? random.int(1, sum(expected) - 1) : undefined;
      before = sim.stats();
      const exit = await runSync(env, dbPath, killAfterPages);
      const cost = requestsByStream(before, sim.stats());
      history.push(`round ${round}: expected ${JSON.stringify(expected)}, kill after ${killAfterPages ?? '-'} pages → ${exit.signal ?? exit.code}, cost ${JSON.stringify(cost)}`);
      if (exit.signal === 'SIGKILL') {
        kills += 1;
        withMirror(dbPath, (db) => {
          expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
          expect(checkpointProblems(db, sim!, PAGE_SIZE), history.join('\n')).toEqual([]);
          const underWay = db.prepare('SELECT stream FROM sync_state WHERE pass_state IS NOT NULL AND last_success_at IS NULL').pluck().all();
          history.push(`  left under way: ${underWay.join(', ') || 'none'}`);
          if (underWay.length > 0) resumePoints += 1;
        });
        continue;
      }
      expect(exit.code, history.join('\n')).toBe(0);
      // Only what the kill left unread, and the overlap: nothing stored before the checkpoint is read again.
      expect(cost, history.join('\n')).toEqual(expected);
      break;
    }
    withMirror(dbPath, (db) => {
      expect(mirrorDiffAll(db, sim!), history.join('\n')).toEqual([]);
      expect(db.prepare('SELECT count(*) FROM sync_state WHERE pass_state IS NOT NULL').pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM sync_runs WHERE status = 'interrupted'").pluck().get()).toBeGreaterThan(0);
    });
  }
  expect(kills, history.join('\n')).toBeGreaterThanOrEqual(ROUNDS);
  // A kill right after a list's first page is stored, before its commit, leaves that list untouched; most land later.
  expect(resumePoints, history.join('\n')).toBeGreaterThanOrEqual(2);
});
