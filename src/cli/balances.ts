import { balancesAsOf, lastLedgerBuild, ledgerBuiltAt, type BalanceAsOf } from '../ledger/balancesAsOf.js';
import { isCalendarDay } from '../ledger/localDay.js';
import { parseCommandArgs, parseIntegerFlag } from './args.js';
import { readMirror, type CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from './errors.js';

const USAGE = `Usage: loyalty-sync balances --as-of DATE [--customer ID] [--format csv|json]

Every customer's approved and pending points at the end of DATE (YYYY-MM-DD, a day in
program.timeZone as the last sync built the ledger with it: after the config changed it, stderr
names the zone the days are in until the next sync rebuilds them), from the points ledger in the
mirror (customer_points_daily): each customer's last row on or before that day; 0 for a
customer without a transaction by then. A DATE after the ledger's last day (the day of the last
sync) prints the balances at its end, and stderr says so. Every customer is those the customers
stream holds and those with a transaction; in_customers is false for one the customers stream
holds no record of (not synced yet, or missing: verify --ledger names it).

Options:
  --as-of DATE     the day, YYYY-MM-DD
  --customer ID    only this customer (the service's customer id)
  --format F       csv (default) or json; in CSV, a merchant_id a spreadsheet would run as a
                   formula (= + - @ tab CR first) gets a leading ' (export.csvFormulaGuard)
  --help           show this help

Reads the mirror only (it may be read-only). Exit codes: 0 printed; 1 the mirror is missing or its
ledger was never built (run loyalty-sync sync); 2 bad usage, or an id with neither a customer nor a transaction in the mirror.
`;

const COLUMNS = ['customer_id', 'merchant_id', 'approved', 'pending', 'last_movement_day', 'in_customers'] as const;

/** Balances' flags, checked (UsageError), without I/O: run before the state is restored, and by the command. */
export function parseBalancesArgs(argv: string[]): { help: true } | { help: false; asOf: string; format: 'csv' | 'json'; customer: number | undefined } {
  const { values } = parseCommandArgs('balances', argv, {
    'as-of': { type: 'string' },
    customer: { type: 'string' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { help: true };
  const asOf = values['as-of'];
  if (asOf === undefined) throw new UsageError('balances: --as-of DATE is required (a day such as 2026-03-31).');
  if (!isCalendarDay(asOf)) throw new UsageError(`--as-of is "${asOf}"; expected a calendar date written YYYY-MM-DD, such as 2026-03-31.`);
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError(`--format is "${format}"; expected csv or json.`);
  const customer = values.customer === undefined ? undefined : parseIntegerFlag('customer', values.customer, 1);
  return { help: false, asOf, format, customer };
}

export async function balancesCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseBalancesArgs(argv);
  if (args.help) {
    ctx.stdout.write(USAGE);
    return EXIT_OK;
  }
  const { asOf, format, customer } = args;

  const db = readMirror(ctx);
  try {
    const built = lastLedgerBuild(db);
    if (built === null) {
      ctx.stderr.write(`The mirror ${ctx.config.db.path} holds no points ledger yet; run loyalty-sync sync to build it.\n`);
      return EXIT_FAILED;
    }
    // --as-of is a day of the zone the tables were built in, which the config may have changed since the last sync.
    const builtZone = built.timeZone;
    if (builtZone !== ctx.config.program.timeZone) {
      ctx.stderr.write(`note: the points ledger's days are in ${builtZone}, the zone of its last build, not program.timeZone ${ctx.config.program.timeZone}: --as-of ${asOf} is a day in ${builtZone} until the next sync rebuilds the ledger.\n`);
    }
    // The mirror knows no movement after its last build (today then): later days repeat its end, which may be short.
    if (asOf > built.lastDay) {
      ctx.stderr.write(`note: the points ledger ends on ${built.lastDay} (its last build): the balances as of ${asOf} are those at its end, without any movement since; run loyalty-sync sync to bring it up to date.\n`);
    } else if (asOf === built.lastDay) {
      // Its last day was today when it was built: the day had not ended, and later movements of it are not in it.
      ctx.stderr.write(`note: the points ledger was last built at ${ledgerBuiltAt(db) ?? 'an unknown time'}, during ${asOf}: the balances as of ${asOf} hold its movements up to then, not the whole day; run loyalty-sync sync after the day ends for its end.\n`);
    }
    const rows = balancesAsOf(db, asOf, customer);
    if (customer !== undefined && rows.length === 0) throw new UsageError(`--customer is ${customer}; the mirror holds no customer and no transaction with that id.`);
    ctx.stdout.write(format === 'json' ? `${JSON.stringify({ as_of: asOf, balances: rows })}\n` : toCsv(rows, ctx.config.export.csvFormulaGuard));
    return EXIT_OK;
  } finally {
    db.close();
  }
}

/** What a spreadsheet runs as a formula when a cell starts with it (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 CSV. A text cell a spreadsheet would run as a formula (a merchant_id is the API's text) gets a `'` in
 * front, as the export's CSV files do under the same setting, export.csvFormulaGuard.
 */
function toCsv(rows: readonly BalanceAsOf[], formulaGuard: boolean): string {
  const field = (value: string | number | boolean | null): string => {
    if (typeof value !== 'string') return value === null ? '' : String(value);
    const guarded = formulaGuard && FORMULA_START.test(value);
    const text = guarded ? `'${value}` : value;
    return guarded || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [COLUMNS.join(','), ...rows.map((row) => COLUMNS.map((column) => field(row[column])).join(','))].map((line) => `${line}\n`).join('');
}
