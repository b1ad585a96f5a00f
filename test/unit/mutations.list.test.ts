import { describe, expect, it } from 'vitest';
import { checkMutations, entryProblems, type Mutation } from '../../mutate/list.mjs';
import mutations from '../../mutate/mutations.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A well-formed entry against a file that exists, to vary one field at a time. */
const sound: Mutation = {
  id: 'config-error-renamed',
  promise: 'Config errors keep their name.',
  file: 'src/configError.ts',
  find: "override readonly name = 'ConfigError';",
  replace: "override readonly name = 'Error';",
  tests: ['test/unit/config.validation.test.ts'],
};

describe('the list of npm run mutate', () => {
  it('can apply every entry: each find occurs exactly once in its file, and each named test file exists', () => {
    expect(checkMutations(ROOT, mutations).problems).toEqual([]);
  });

  it('refuses an entry whose find is gone, or occurs more than once, naming the entry and the count', () => {
    expect(entryProblems(ROOT, sound)).toEqual([]);
    expect(entryProblems(ROOT, { ...sound, find: 'a line no refactor would write' })).toEqual([
      'config-error-renamed: find occurs 0 times in src/configError.ts; expected exactly once (move the entry with the code, or make find longer).',
    ]);
    expect(entryProblems(ROOT, { ...sound, find: 'e' })[0]).toMatch(/^config-error-renamed: find occurs \d+ times in src\/configError.ts; expected exactly once/);
  });

  it('refuses a mutation that changes nothing, a missing test file, and an entry without tests that does not say which test is to guard it', () => {
    expect(entryProblems(ROOT, { ...sound, replace: sound.find })).toEqual(['config-error-renamed: replace equals find, so the mutation changes nothing.']);
    expect(entryProblems(ROOT, { ...sound, tests: ['test/unit/no-such.test.ts'] })).toEqual(['config-error-renamed: test file test/unit/no-such.test.ts does not exist.']);
    expect(entryProblems(ROOT, { ...sound, tests: [] })).toEqual(['config-error-renamed: tests is empty, so awaiting must say which test is to guard it.']);
    expect(checkMutations(ROOT, [{ ...sound, tests: [], awaiting: 'a test of the name' }])).toEqual({ problems: [], unguarded: ['config-error-renamed'] });
  });

  it('refuses two entries with one id', () => {
    expect(checkMutations(ROOT, [sound, sound]).problems).toEqual(['config-error-renamed: id is used by more than one entry.']);
  });
});
