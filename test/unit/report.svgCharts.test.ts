import { describe, expect, it } from 'vitest';
import { divergingBars, lineChart } from '../../src/report/svgCharts.js';

/** The y coordinates the chart draws: the polyline's points, or each bar's top and bottom. */
function lineYs(svg: string): number[] {
  return [...svg.matchAll(/points="([^"]+)"/g)].flatMap((match) => match[1].split(' ').map((point) => Number(point.split(',')[1])));
}
function barYs(svg: string): number[] {
  // A bar carries its figure in a <title>; the legend's squares do not.
  return [...svg.matchAll(/<rect x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)" fill="[^"]+"><title>/g)].flatMap((match) => [Number(match[1]), Number(match[1]) + Number(match[2])]);
}
function axisTicks(svg: string): number[] {
  return [...svg.matchAll(/text-anchor="end">([^<]+)</g)].map((match) => Number(match[1].replaceAll(',', '')));
}

// The plot area of every chart: 16 from the top to 260 - 36 from it (svgCharts' PAD and HEIGHT).
const TOP = 16;
const BOTTOM = 224;

describe('the report\'s charts draw every value inside the plot, under an axis that reaches it', () => {
  it('the outstanding-points line at 1,240,000 points', () => {
    const svg = lineChart('Outstanding points by day', ['2026-03-01', '2026-03-02'], [{ label: 'Approved', color: '#000', values: [1_000_000, 1_240_000] }]);
    expect(Math.max(...axisTicks(svg))).toBeGreaterThanOrEqual(1_240_000);
    for (const y of lineYs(svg)) expect(y).toBeGreaterThanOrEqual(TOP);
  });

  it('a month of 124,000 earned points and one of 7,000 redeemed', () => {
    const svg = divergingBars('Movements by month', ['2026-03', '2026-04'], [
      { label: 'Earned', color: '#000', values: [124_000, 0] },
      { label: 'Redeemed', color: '#111', values: [0, -7_000] },
    ]);
    const ticks = axisTicks(svg);
    expect([Math.min(...ticks) <= -7_000, Math.max(...ticks) >= 124_000]).toEqual([true, true]);
    expect(barYs(svg)).toHaveLength(4);
    for (const y of barYs(svg)) expect([y >= TOP - 0.05, y <= BOTTOM + 0.05]).toEqual([true, true]);
  });

  it('for maxima of every size, a round number or just past one', () => {
    for (let exponent = 0; exponent <= 9; exponent++) {
      for (const factor of [1, 1.04, 1.24, 2, 2.6, 5, 5.4, 9.99]) {
        const high = Math.round(factor * 10 ** exponent);
        const low = -Math.round(high / 3);
        const svg = lineChart('Outstanding points by day', ['2026-03-01', '2026-03-02', '2026-03-03'], [{ label: 'Approved', color: '#000', values: [low, 0, high] }]);
        const ticks = axisTicks(svg);
        expect([Math.min(...ticks) <= low, Math.max(...ticks) >= high], `low ${low}, high ${high}: ticks ${ticks.join(' ')}`).toEqual([true, true]);
        for (const y of lineYs(svg)) expect([y >= TOP - 0.05, y <= BOTTOM + 0.05], `low ${low}, high ${high}: y ${y}`).toEqual([true, true]);
      }
    }
  });
});
