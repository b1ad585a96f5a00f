import { resolve } from 'node:path';
import { restoreAsOf } from '../state/restoreAsOf.js';
import { parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { EXIT_USAGE, UsageError } from './errors.js';

function usage(): string {
  return [
    'Usage: loyalty-sync state restore --as-of TIME [--to PATH]',
    '',
    'Restores the state in the bucket (state.url) as it was saved at TIME into an empty or new folder,',
    'to read beside the live state: the live mirror and the bucket are left alone, and no lease is taken.',
    'How far back a state can be restored is state.retainHours (default 24).',
    '',
    'Options:',
    '  --as-of TIME   an ISO 8601 time, e.g. 2026-11-27T06:00:00Z: the newest save at or before it is restored',
    '  --to PATH      the restored mirror file; its folder must be empty or missing (default: db.path, LOYALTY_DB)',
    '  --help         show this help',
    '',
    'Exit codes: 0 restored; 1 the bucket or the folder failed; 2 bad usage.',
    '',
  ].join('\n');
}

/** `state restore --as-of TIME`: an older saved state, restored beside the live one. */
export async function stateCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout.write(usage());
    return 0;
  }
  if (name !== 'restore') {
    ctx.stderr.write(usage());
    if (name === undefined) return EXIT_USAGE;
    throw new UsageError(`Unknown state subcommand "${name}"; expected: restore.`);
  }
  const { values } = parseCommandArgs('state restore', rest, { 'as-of': { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean' } });
  if (values.help) {
    ctx.stdout.write(usage());
    return 0;
  }
  if (ctx.config.state.url === '') throw new UsageError('state restore needs the state\'s place: set state.url (LOYALTY_STATE_URL) to s3://BUCKET/PREFIX.');
  const asOf = values['as-of'];
  if (asOf === undefined) throw new UsageError('state restore needs --as-of TIME, e.g. --as-of 2026-11-27T06:00:00Z.');
  const asOfMs = /\d{4}-\d{2}-\d{2}T/.test(asOf) && /(Z|[+-]\d{2}:?\d{2})$/.test(asOf) ? Date.parse(asOf) : Number.NaN;
  if (!Number.isFinite(asOfMs)) throw new UsageError(`--as-of is "${asOf}"; expected an ISO 8601 time with its zone, e.g. 2026-11-27T06:00:00Z.`);
  const target = resolve(values.to ?? ctx.config.db.path);
  const { entry, report } = await restoreAsOf(ctx.config, ctx.logger, asOfMs, target);
  ctx.stdout.write(
    `restored the state at ${ctx.config.state.url} as saved at ${entry.manifest.savedAt} (log entry ${entry.seq}, epoch ${entry.manifest.epoch}) into ${target}: ${report.rows} rows from ${report.dumps} dump(s)\n`,
  );
  return 0;
}
