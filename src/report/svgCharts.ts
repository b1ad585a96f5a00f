/** Inline SVG charts for the report: no script, no font or file from elsewhere, so the page reads offline. */

const WIDTH = 880;
const HEIGHT = 260;
const PAD = { left: 84, right: 16, top: 16, bottom: 36 };

export interface Series {
  label: string;
  color: string;
  values: readonly number[];
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Round steps (1, 2, 5 × 10^n) covering [low, high], for the axis: the first at or below low, the last at or above high. */
function ticks(low: number, high: number, count = 5): number[] {
  const span = high - low || 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw) ?? raw;
  const out: number[] = [];
  for (let k = Math.floor(low / step); k <= Math.ceil(high / step); k += 1) out.push(k * step);
  return out;
}

function frame(title: string, body: string, yTicks: number[], y: (value: number) => number, xLabels: Array<{ x: number; text: string }>, legend: readonly Series[]): string {
  const grid = yTicks
    .map((tick) => `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" class="grid${tick === 0 ? ' zero' : ''}"/><text x="${PAD.left - 8}" y="${(y(tick) + 4).toFixed(1)}" class="axis" text-anchor="end">${formatInteger(tick)}</text>`)
    .join('');
  const labels = xLabels.map((label) => `<text x="${label.x.toFixed(1)}" y="${HEIGHT - PAD.bottom + 18}" class="axis" text-anchor="middle">${escapeHtml(label.text)}</text>`).join('');
  const keys = legend
    .map((series, i) => `<rect x="${PAD.left + i * 130}" y="${HEIGHT - 12}" width="10" height="10" fill="${series.color}"/><text x="${PAD.left + i * 130 + 14}" y="${HEIGHT - 3}" class="axis">${escapeHtml(series.label)}</text>`)
    .join('');
  return `<svg viewBox="0 0 ${WIDTH} ${HEIGHT + 8}" role="img" aria-label="${escapeHtml(title)}" class="chart">${grid}${body}${labels}${keys}</svg>`;
}

/** Lines over days, one per series; x labels at the first day of some months. */
export function lineChart(title: string, days: readonly string[], series: readonly Series[]): string {
  if (days.length === 0) return '<p class="empty">No days in the ledger yet.</p>';
  const all = series.flatMap((s) => s.values);
  const yTicks = ticks(Math.min(0, ...all), Math.max(1, ...all));
  const [low, high] = [yTicks[0], yTicks.at(-1)!];
  const x = (i: number): number => PAD.left + (days.length === 1 ? 0 : (i / (days.length - 1)) * (WIDTH - PAD.left - PAD.right));
  const y = (value: number): number => PAD.top + (1 - (value - low) / (high - low || 1)) * (HEIGHT - PAD.top - PAD.bottom);
  const paths = series
    .map((s) => `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.values.map((value, i) => `${x(i).toFixed(1)},${y(value).toFixed(1)}`).join(' ')}"/>`)
    .join('');
  const monthStarts = days.map((day, i) => ({ day, i })).filter(({ day, i }) => i === 0 || day.endsWith('-01'));
  const every = Math.max(1, Math.ceil(monthStarts.length / 8));
  const xLabels = monthStarts.filter((_, k) => k % every === 0).map(({ day, i }) => ({ x: x(i), text: day.slice(0, 7) }));
  return frame(title, paths, yTicks, y, xLabels, series);
}

/** Bars per category, stacked up from zero for positive values and down for negative ones. */
export function divergingBars(title: string, categories: readonly string[], series: readonly Series[]): string {
  if (categories.length === 0) return '<p class="empty">No months in the ledger yet.</p>';
  const up = categories.map((_, c) => series.reduce((sum, s) => sum + Math.max(0, s.values[c]), 0));
  const down = categories.map((_, c) => series.reduce((sum, s) => sum + Math.min(0, s.values[c]), 0));
  const yTicks = ticks(Math.min(0, ...down), Math.max(1, ...up));
  const [low, high] = [yTicks[0], yTicks.at(-1)!];
  const y = (value: number): number => PAD.top + (1 - (value - low) / (high - low || 1)) * (HEIGHT - PAD.top - PAD.bottom);
  const slot = (WIDTH - PAD.left - PAD.right) / categories.length;
  const barWidth = Math.max(2, Math.min(40, slot * 0.6));
  let bars = '';
  categories.forEach((category, c) => {
    let top = 0;
    let bottom = 0;
    const left = PAD.left + c * slot + (slot - barWidth) / 2;
    for (const s of series) {
      const value = s.values[c];
      if (value === 0) continue;
      const [from, to] = value > 0 ? [top, (top += value)] : [bottom, (bottom += value)];
      const [y1, y2] = [y(Math.max(from, to)), y(Math.min(from, to))];
      bars += `<rect x="${left.toFixed(1)}" y="${y1.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(0.5, y2 - y1).toFixed(1)}" fill="${s.color}"><title>${escapeHtml(`${category} ${s.label}: ${formatInteger(value)}`)}</title></rect>`;
    }
  });
  const every = Math.max(1, Math.ceil(categories.length / 12));
  const xLabels = categories.map((text, c) => ({ x: PAD.left + c * slot + slot / 2, text })).filter((_, c) => c % every === 0);
  return frame(title, bars, yTicks, y, xLabels, series);
}
