import { rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { lastLedgerBuild } from '../ledger/balancesAsOf.js';
import { renderReport } from '../report/renderReport.js';
import { readReportFigures } from '../report/reportFigures.js';
import { parseCommandArgs } from './args.js';
import { readMirror, type CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from './errors.js';
import { refuseStoredData } from './reportOut.js';

const USAGE = `Usage: loyalty-sync report --out FILE.html

Writes one self-contained HTML page for finance and analysts (inline CSS and SVG, no script, nothing
fetched: it opens offline and can be mailed): approved and pending points outstanding by day (and
the liability with ledger.pointValue), the movements by month (earned, reversed, redeemed,
reimbursed, expired, other), the redemption rate, members' share of orders and revenue by month,
customers by tier, and the last reconciliation (verify --ledger). Every figure is read from the
points ledger's tables in the mirror (points_ledger_daily, program_metrics_daily, ledger_checks).

Options:
  --out FILE   where to write the page (its folder must exist); replaced whole if it exists,
               unless it is the mirror, another SQLite database or not a regular file (exit 2)
  --help       show this help

Reads the mirror only (it may be read-only). Exit codes: 0 written; 1 the mirror is missing or its
ledger was never built (run loyalty-sync sync); 2 bad usage, or a folder --out cannot be written in.
`;

/** Report's flags, checked (UsageError), without I/O: run before the state is restored, and by the command. */
export function parseReportArgs(argv: string[]): { help: true } | { help: false; out: string } {
  const { values } = parseCommandArgs('report', argv, {
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { help: true };
  if (values.out === undefined || values.out === '') throw new UsageError('report: --out FILE.html is required (where to write the page).');
  return { help: false, out: values.out };
}

/** Report's flags, and the folder --out names: both can be refused before the state is restored. */
export async function checkReportArgs(argv: string[]): Promise<{ help: boolean }> {
  const args = parseReportArgs(argv);
  if (!args.help) await requireFolder(resolve(args.out));
  return args;
}

export async function reportCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseReportArgs(argv);
  if (args.help) {
    ctx.stdout.write(USAGE);
    return EXIT_OK;
  }
  const out = resolve(args.out);
  await requireFolder(out);
  // Before the mirror is read: the page is renamed over --out, which must not be the mirror or other stored data.
  await refuseStoredData(out, args.out, ctx.config.db.path);

  const db = readMirror(ctx);
  let page: string;
  try {
    const built = lastLedgerBuild(db);
    if (built === null) {
      ctx.stderr.write(`The mirror ${ctx.config.db.path} holds no points ledger yet; run loyalty-sync sync to build it.\n`);
      return EXIT_FAILED;
    }
    // The zone and point value the tables were built with: the config may have changed since the last sync.
    page = renderReport(readReportFigures(db), { timeZone: built.timeZone, pointValue: built.pointValue, generatedAt: new Date().toISOString() });
  } finally {
    db.close();
  }
  // Beside the target, then renamed: a reader never opens half a page.
  const tmp = resolve(dirname(out), `.${basename(out)}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, page);
    await rename(tmp, out);
  } catch (error) {
    await rm(tmp, { force: true });
    throw new UsageError(`--out is "${args.out}"; cannot write it there (${(error as NodeJS.ErrnoException).code ?? String(error)}): expected a file in a folder this user may write.`);
  }
  ctx.stdout.write(`${out}\n`);
  return EXIT_OK;
}

async function requireFolder(out: string): Promise<void> {
  const folder = dirname(out);
  const found = await stat(folder).catch(() => null);
  if (found === null || !found.isDirectory()) throw new UsageError(`--out is "${out}"; its folder ${folder} does not exist: create it first or choose another path.`);
}
