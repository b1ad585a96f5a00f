// npm run mutate: applies each mutation of mutate/mutations.mjs, one at a time, to a scratch copy of the
// repository, builds it (the CLI tests run dist/), runs the tests that guard the mutation's promise, and
// prints whether they caught it. A mutation the tests let through is a defect of the tests.
//
// MUTATE_ONLY=id1,id2   runs only those entries.
// MUTATE_CHECK=1        applies nothing: checks that every entry's find occurs exactly once and its tests exist.
// MUTATE_KEEP=1         leaves the scratch copy and the logs in the temp folder, and says where.
//
// The working tree is never written: the copy holds the tracked and untracked-but-not-ignored files as they
// are on disk, and links node_modules.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkMutations, entryProblems } from './list.mjs';
import mutations from './mutations.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A guard run longer than this is stopped and reported as an error: a hang is not a verdict. */
const RUN_LIMIT_MS = 30 * 60 * 1000;

function chosenMutations() {
  if (!process.env.MUTATE_ONLY) return mutations;
  const ids = process.env.MUTATE_ONLY.split(',').map((id) => id.trim()).filter((id) => id !== '');
  const unknown = ids.filter((id) => !mutations.some((entry) => entry.id === id));
  if (unknown.length > 0) {
    console.error(`MUTATE_ONLY names ${unknown.join(', ')}, which no entry of mutate/mutations.mjs has.`);
    process.exit(2);
  }
  return mutations.filter((entry) => ids.includes(entry.id));
}

function checkOnly(chosen) {
  const { problems, unguarded } = checkMutations(ROOT, chosen);
  for (const problem of problems) console.log(`refused  ${problem}`);
  for (const id of unguarded) console.log(`no guard ${id}: ${chosen.find((entry) => entry.id === id).awaiting}`);
  console.log(`${chosen.length} mutations checked: ${problems.length} problems, ${unguarded.length} without a guarding test.`);
  process.exit(problems.length === 0 && unguarded.length === 0 ? 0 : 1);
}

/** Copies what git would check out, plus new files not yet added, as they are on disk now. */
function makeScratchCopy(into) {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  for (const path of listed.split('\0')) {
    if (path === '') continue;
    const from = join(ROOT, path);
    let stat;
    try {
      stat = lstatSync(from);
    } catch {
      continue; // deleted in the working tree but not yet in the index
    }
    const to = join(into, path);
    mkdirSync(dirname(to), { recursive: true });
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (stat.isFile()) copyFileSync(from, to);
  }
  if (!existsSync(join(ROOT, 'node_modules'))) throw new Error(`${ROOT} has no node_modules: run npm ci first.`);
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'));
}

/** The command running now, whose process group is stopped when the runner is. */
let current = null;

/** Runs a command in its own process group with its output in `log`; resolves with its exit code, or null after a timeout. */
function runLogged(command, args, cwd, log, limitMs) {
  return new Promise((resolve, reject) => {
    const fd = openSync(log, 'a');
    const child = spawn(command, args, { cwd, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    current = child;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid, 'SIGKILL');
    }, limitMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      current = null;
      resolve(timedOut ? null : code);
    });
  });
}

function build(copy, log) {
  return runLogged('npm', ['run', '--silent', 'build'], copy, log, RUN_LIMIT_MS);
}

function tail(path, lines) {
  if (!existsSync(path)) return '';
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).map((line) => `    ${line}`).join('\n');
}

/** The first failed test's name in vitest's JSON report, or the first failed file's message. */
function firstFailure(report) {
  for (const file of report.testResults ?? []) {
    const failed = (file.assertionResults ?? []).find((test) => test.status === 'failed');
    if (failed) return failed.fullName;
  }
  const file = (report.testResults ?? []).find((result) => result.status === 'failed');
  return file ? `${file.name.replace(/^.*?\/test\//, 'test/')}: ${(file.message ?? '').split('\n')[0]}` : '';
}

async function tryMutation(entry, copy, logs) {
  const problems = entryProblems(copy, entry);
  if (problems.length > 0) return { outcome: 'refused', detail: problems.join(' ') };
  if (entry.tests.length === 0) return { outcome: 'no guard', detail: entry.awaiting };
  const path = join(copy, entry.file);
  const original = readFileSync(path, 'utf8');
  writeFileSync(path, original.replace(entry.find, () => entry.replace));
  try {
    const log = join(logs, `${entry.id}.log`);
    const built = await build(copy, log);
    if (built !== 0) return { outcome: 'broken', detail: `the mutated copy does not build; see the log:\n${tail(log, 15)}` };
    const report = join(logs, `${entry.id}.json`);
    const args = [
      join(copy, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--bail=1',
      '--no-cache',
      '--no-fsModuleCache',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...(entry.testName ? ['-t', entry.testName] : []),
      ...entry.tests,
    ];
    const code = await runLogged(process.execPath, args, copy, log, RUN_LIMIT_MS);
    if (code === null) return { outcome: 'error', detail: `the tests ran longer than ${RUN_LIMIT_MS / 60000} minutes and were stopped.` };
    const result = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : null;
    if (code !== 0 && result && (result.numFailedTests > 0 || result.numFailedTestSuites > 0)) return { outcome: 'caught', detail: firstFailure(result) };
    if (code === 0 && result && result.numPassedTests > 0) return { outcome: 'survived', detail: `${result.numPassedTests} tests passed with the mutation applied.` };
    return { outcome: 'error', detail: `vitest exited ${code} with no failed test to show for it:\n${tail(log, 15)}` };
  } finally {
    writeFileSync(path, original);
  }
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(0)} s`;
}

async function main() {
  const chosen = chosenMutations();
  if (process.env.MUTATE_CHECK === '1') checkOnly(chosen);
  const work = mkdtempSync(join(tmpdir(), 'loyalty-sync-mutate-'));
  const copy = join(work, 'repo');
  const logs = join(work, 'logs');
  mkdirSync(logs);
  const cleanUp = () => {
    if (current) process.kill(-current.pid, 'SIGKILL');
    if (process.env.MUTATE_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  };
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
    process.on(signal, () => {
      cleanUp();
      process.exit(code);
    });
  }
  const started = Date.now();
  try {
    makeScratchCopy(copy);
    const log = join(logs, 'unmutated-build.log');
    if ((await build(copy, log)) !== 0) {
      console.error(`The unmutated copy does not build, so no mutation can be judged:\n${tail(log, 15)}`);
      process.exitCode = 1;
      return;
    }
    console.log(`${chosen.length} mutations, each applied alone to a copy in ${copy}:\n`);
    const results = [];
    for (const entry of chosen) {
      const at = Date.now();
      const result = await tryMutation(entry, copy, logs);
      results.push({ entry, ...result, ms: Date.now() - at });
      const detail = result.outcome === 'caught' ? `by ${result.detail}` : result.detail;
      console.log(`${result.outcome.padEnd(9)}${entry.id} (${seconds(Date.now() - at)})\n    ${entry.promise}\n    ${detail}`);
    }
    const count = (outcome) => results.filter((result) => result.outcome === outcome).length;
    const outcomes = ['caught', 'survived', 'broken', 'refused', 'no guard', 'error'];
    console.log(`\n${'outcome'.padEnd(10)}${'seconds'.padStart(8)}  mutation`);
    for (const result of results) console.log(`${result.outcome.padEnd(10)}${(result.ms / 1000).toFixed(0).padStart(8)}  ${result.entry.id}`);
    const summary = outcomes.filter((outcome) => count(outcome) > 0).map((outcome) => `${count(outcome)} ${outcome}`).join(', ');
    console.log(`\n${results.length} mutations: ${summary}, in ${seconds(Date.now() - started)}.`);
    if (count('caught') !== results.length) {
      console.log('Every mutation must be caught: a survivor or an entry without a guard is a defect of the tests; a broken or refused one, of the list.');
      process.exitCode = 1;
    }
    if (process.env.MUTATE_KEEP === '1') console.log(`The copy and the logs are kept in ${work}.`);
  } finally {
    cleanUp();
  }
}

await main();
