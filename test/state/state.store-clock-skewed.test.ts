import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useStateStore } from './stateStore.js';

/**
 * A store whose clock is far from this machine's: the S3 client corrects its signing time by the store's Date,
 * and must not send every "no such key" or "already there" again for it. The state's log is read by asking for
 * entries that do not exist yet, so each retried 404 would cost a run seconds of backoff.
 */
describe("a bucket whose clock is 10 minutes off this machine's", () => {
  const store = useStateStore({ seed: 36, size: 'tiny' });

  /** The store's answers to runs on `prefix`: how many, and how many were 404 or 412. */
  async function runsOn(prefix: string): Promise<{ requests: number; definite: number; repeatedInARow: number }> {
    const from = store.storeAnswers().length;
    for (const command of ['sync', 'once', 'sync']) {
      const result = await runCli([command], store.freshRun(prefix));
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
    }
    const answers = store.storeAnswers().slice(from).filter((answer) => answer.key.startsWith(`${prefix}/`));
    const definite = answers.filter((answer) => answer.status === 404 || answer.status === 412);
    // A retry is the same request, answered the same, again right after.
    const repeatedInARow = answers.filter((answer, index) => {
      const before = answers[index - 1];
      return (answer.status === 404 || answer.status === 412) && before !== undefined && before.method === answer.method && before.key === answer.key && before.status === answer.status;
    }).length;
    return { requests: answers.length, definite: definite.length, repeatedInARow };
  }

  it.each([
    ['ahead', 10 * 60_000],
    ['behind', -10 * 60_000],
  ])('%s: each 404 and 412 is asked once, and the runs cost what they cost on time', async (name, skewMs) => {
    const onTime = await runsOn(`on-time-${name}`);
    store.storeClock().skewMs += skewMs;
    try {
      const skewed = await runsOn(`skewed-${name}`);
      expect(skewed.repeatedInARow, JSON.stringify({ onTime, skewed })).toBe(0);
      expect(skewed.definite, JSON.stringify({ onTime, skewed })).toBe(onTime.definite);
      // A lease renewal more or less, at most: a retried answer costs up to seven requests more.
      expect(skewed.requests, JSON.stringify({ onTime, skewed })).toBeLessThanOrEqual(onTime.requests + 2);
    } finally {
      store.storeClock().skewMs -= skewMs;
    }
  });
});
