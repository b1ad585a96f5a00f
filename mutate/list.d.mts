/** One small bug, applied to a scratch copy, that the listed tests must catch. */
export interface Mutation {
  /** Lower-case words joined by hyphens, unique in the list; `MUTATE_ONLY` names entries by it. */
  id: string;
  /** The promise the guarding tests keep, in one sentence. */
  promise: string;
  /** The file mutated, relative to the repository root. */
  file: string;
  /** Text that occurs exactly once in `file`. */
  find: string;
  /** What `find` becomes. */
  replace: string;
  /** The test files that guard the promise; empty while none does yet (then `awaiting` says which will). */
  tests: string[];
  /** Runs only the tests whose full names match this pattern (vitest `-t`), to keep long files short. */
  testName?: string;
  /** For an entry without tests: the test that is to guard it. */
  awaiting?: string;
}
export declare function occurrences(text: string, needle: string): number;
export declare function entryProblems(root: string, entry: Mutation): string[];
export declare function checkMutations(root: string, mutations: readonly Mutation[]): { problems: string[]; unguarded: string[] };
