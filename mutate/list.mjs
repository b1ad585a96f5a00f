// The mutation list's rules, shared by the runner (mutate/run.mjs) and the unit test that keeps the list
// honest in `npm test` (test/unit/mutations.list.test.ts). An entry whose `find` no longer occurs exactly
// once is refused rather than applied: after a refactor moved the code, a mutation that changes nothing
// would pass for caught, and one that matches twice would not be the bug its promise names.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How many times `needle` occurs in `text`, overlapping occurrences included. */
export function occurrences(text, needle) {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count += 1;
  return count;
}

/** The problems of one entry, each one sentence naming the entry and the field; empty when it can be applied. */
export function entryProblems(root, entry) {
  const name = typeof entry.id === 'string' && entry.id !== '' ? entry.id : JSON.stringify(entry).slice(0, 60);
  const problems = [];
  if (typeof entry.id !== 'string' || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(entry.id)) problems.push(`${name}: id must be lower-case words joined by hyphens.`);
  if (typeof entry.promise !== 'string' || entry.promise.trim() === '') problems.push(`${name}: promise must name, in one sentence, what the guarding tests keep true.`);
  if (typeof entry.find !== 'string' || entry.find === '') problems.push(`${name}: find must be a non-empty string.`);
  if (typeof entry.replace !== 'string') problems.push(`${name}: replace must be a string.`);
  else if (entry.replace === entry.find) problems.push(`${name}: replace equals find, so the mutation changes nothing.`);
  if (!Array.isArray(entry.tests)) problems.push(`${name}: tests must be a list of test files (empty while no test guards it yet).`);
  else {
    for (const test of entry.tests) {
      if (typeof test !== 'string' || !test.endsWith('.test.ts')) problems.push(`${name}: tests holds ${JSON.stringify(test)}; expected a path ending in .test.ts.`);
      else if (!existsSync(join(root, test))) problems.push(`${name}: test file ${test} does not exist.`);
    }
    if (entry.tests.length === 0 && (typeof entry.awaiting !== 'string' || entry.awaiting.trim() === '')) {
      problems.push(`${name}: tests is empty, so awaiting must say which test is to guard it.`);
    }
  }
  if (entry.testName !== undefined && (typeof entry.testName !== 'string' || entry.testName === '')) problems.push(`${name}: testName, when given, must be a non-empty pattern of test names.`);
  if (typeof entry.file !== 'string' || entry.file === '') problems.push(`${name}: file must be a path inside the repository.`);
  else if (!existsSync(join(root, entry.file))) problems.push(`${name}: file ${entry.file} does not exist.`);
  else if (typeof entry.find === 'string' && entry.find !== '') {
    const count = occurrences(readFileSync(join(root, entry.file), 'utf8'), entry.find);
    if (count !== 1) {
      problems.push(`${name}: find occurs ${count} times in ${entry.file}; expected exactly once (move the entry with the code, or make find longer).`);
    }
  }
  return problems;
}

/**
 * Checks the whole list: `problems` are entries that cannot be applied as written (and duplicate ids);
 * `unguarded` are well-formed entries no test guards yet, which a run reports as `no guard`, never as caught.
 */
export function checkMutations(root, mutations) {
  const problems = [];
  const seen = new Set();
  for (const entry of mutations) {
    problems.push(...entryProblems(root, entry));
    if (seen.has(entry.id)) problems.push(`${entry.id}: id is used by more than one entry.`);
    seen.add(entry.id);
  }
  const unguarded = mutations.filter((entry) => Array.isArray(entry.tests) && entry.tests.length === 0).map((entry) => entry.id);
  return { problems, unguarded };
}
