import { describe, expect, it } from 'vitest';
import { StoreClock } from '../../src/bucket/storeClock.js';

describe("the store's clock", () => {
  it('follows the Date of the latest answer, whatever the local clock says, within a day of it', () => {
    const clock = new StoreClock();
    const tenMinutesBehind = new Date(Date.now() - 600_000).toUTCString();
    clock.heard(tenMinutesBehind, performance.now());
    expect(clock.usable).toBe(true);
    expect(Math.abs(clock.now() - Date.parse(tenMinutesBehind))).toBeLessThan(1000);
  });

  it('is no clock to judge a lease by when the store sends no Date, or one more than a day off, and says which', () => {
    const silent = new StoreClock();
    expect(silent.unusableBecause).toBe('the store has not answered yet');
    silent.heard(undefined, performance.now());
    expect(silent.usable).toBe(false);
    expect(silent.unusableBecause).toBe('the store sends no Date header');

    const farOff = new StoreClock();
    const twoDaysAhead = new Date(Date.now() + 2 * 86_400_000).toUTCString();
    farOff.heard(twoDaysAhead, performance.now());
    expect(farOff.usable).toBe(false);
    expect(farOff.unusableBecause).toBe(`the store's Date header (${twoDaysAhead}) is more than a day from this machine's clock (one of the two is wrong)`);
  });

  it("counts the round trip of the answer that set it into its uncertainty: the Date was stamped somewhere in between", () => {
    const clock = new StoreClock();
    clock.heard(new Date().toUTCString(), performance.now() - 7000);
    expect(clock.uncertaintyMs).toBeGreaterThanOrEqual(8000);
    clock.heard(new Date().toUTCString(), performance.now());
    expect(clock.uncertaintyMs).toBeLessThan(1100);
  });
});
