import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('a flag whose value starts with a dash (balances --customer -5)', () => {
  it('is refused in one sentence naming the flag, the value and how to give it', async () => {
    const result = await runCli(['balances', '--as-of', '2026-03-31', '--customer', '-5'], { env: { LOYALTY_DB: '/nonexistent/mirror.db' } });
    expect(result.code).toBe(2);
    const sentence = result.stderr.trimEnd();
    expect(sentence.split('\n')).toHaveLength(1);
    expect(sentence).toBe('loyalty-sync: balances: --customer is "-5", which starts with a dash and so reads as a flag; write --customer=-5 to give it as the value; see "loyalty-sync balances --help".');
  });
});
