import { ConfigError, loadConfig } from '../config.js';
import { createLogger, redact } from '../log.js';
import { requireApiKey, type CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_USAGE, UsageError } from './errors.js';
import { describeError } from '../api/errors.js';
import { LockBusyError } from '../runtime/lock.js';
import { isDamagedDatabase, isReadOnlyDatabase, mirrorError } from '../db/open.js';
import type { LeaseMode } from '../state/session.js';
import { runWithState } from './withState.js';
import { watchStdoutClosing } from './stdoutClosed.js';

interface CommandBase {
  summary: string;
  /** Whether the command reads the config (simulate and help do not need it). */
  needsConfig: boolean;
  /**
   * Whether the command, with these flags, calls the API: without LOYALTY_API_KEY it stops before sending
   * anything, to the bucket (the state) included. `verify --ledger` reads only the mirror.
   */
  callsApi?: (argv: readonly string[]) => boolean;
  run: (argv: string[], ctx: CommandContext) => Promise<number>;
}

/**
 * Checks the command's flags (its own parse…Args, which the command runs again) before the state in the
 * bucket or the API is touched, so a usage error costs no lease and no restore. `help` when the command
 * will only print a usage: it then runs without the state.
 */
type CheckArgs = (argv: string[]) => Promise<{ help: boolean }>;

/** A command that uses the state must check its flags first: the type makes it so. */
type CommandEntry = CommandBase &
  (
    | {
        /** With `state.url` set: how the command holds the state in the bucket (see src/state/session.ts). */
        state: (argv: readonly string[]) => LeaseMode;
        checkArgs: CheckArgs;
      }
    | { state?: undefined; checkArgs?: CheckArgs }
  );

const COMMANDS: Record<string, CommandEntry> = {
  sync: {
    state: () => 'wait',
    summary: 'pull the streams incrementally into the mirror (--stream NAME… --full --refresh --deep --accept-removals)',
    needsConfig: true,
    callsApi: () => true,
    checkArgs: async (argv) => (await import('./sync.js')).parseSyncArgs(argv),
    run: async (argv, ctx) => (await import('./sync.js')).syncCommand(argv, ctx),
  },
  push: {
    state: () => 'wait',
    summary: 'send the due jobs of the write queue',
    needsConfig: true,
    callsApi: () => true,
    checkArgs: async (argv) => (await import('./push.js')).parsePushArgs(argv),
    run: async (argv, ctx) => (await import('./push.js')).pushCommand(argv, ctx),
  },
  export: {
    state: () => 'wait',
    summary: 'write one consistent CSV/Parquet snapshot of the mirror and bring its Delta Lake tables up to date, and publish to object storage with --to (--format csv,parquet,delta --table NAME… --since-last --to s3://BUCKET/PREFIX)',
    needsConfig: true,
    checkArgs: async (argv) => (await import('./export.js')).parseExportArgs(argv),
    run: async (argv, ctx) => (await import('./export.js')).exportCommand(argv, ctx),
  },
  once: {
    state: () => 'skip',
    summary: 'sync, then push, then export; exit 0 only if all succeeded (for cron containers; --verify, --verify-daily, --export-daily, --accept-removals, --metrics-file PATH, --pushgateway URL)',
    needsConfig: true,
    callsApi: () => true,
    checkArgs: async (argv) => ({ help: (await import('./once.js')).parseOnceArgs(argv).values.help === true }),
    run: async (argv, ctx) => (await import('./once.js')).onceCommand(argv, ctx),
  },
  run: {
    state: () => 'wait',
    summary: 'stay up and run sync, refresh, push, export and verify on the configured schedules until SIGTERM/SIGINT (--metrics-listen HOST:PORT)',
    needsConfig: true,
    callsApi: () => true,
    checkArgs: async (argv) => (await import('./run.js')).parseRunArgs(argv),
    run: async (argv, ctx) => (await import('./run.js')).runCommand(argv, ctx),
  },
  status: {
    state: () => 'read',
    summary: 'per stream rows, watermark, last success and lag; queue counts; last export, publication and verify; lock holder; schema drift (--json; --check exits 1 when unhealthy)',
    needsConfig: true,
    checkArgs: async (argv) => (await import('./status.js')).parseStatusArgs(argv),
    run: async (argv, ctx) => (await import('./status.js')).statusCommand(argv, ctx),
  },
  verify: {
    state: () => 'wait',
    summary: 'show that the mirror equals the API, and repair it where it does not (--stream NAME… --full --requests N --repair --accept-removals --json); --ledger reconciles balances with transactions',
    needsConfig: true,
    callsApi: (argv) => !argv.includes('--ledger'),
    checkArgs: async (argv) => (await import('./verify.js')).parseVerifyArgs(argv),
    run: async (argv, ctx) => (await import('./verify.js')).verifyCommand(argv, ctx),
  },
  balances: {
    state: () => 'read',
    summary: "every customer's approved and pending points at the end of a day, from the points ledger (--as-of DATE --customer ID --format csv|json)",
    needsConfig: true,
    checkArgs: async (argv) => (await import('./balances.js')).parseBalancesArgs(argv),
    run: async (argv, ctx) => (await import('./balances.js')).balancesCommand(argv, ctx),
  },
  report: {
    state: () => 'read',
    summary: 'write one self-contained HTML page of the points ledger for finance: outstanding points and liability, movements, redemption, members\' revenue, tiers, reconciliation (--out FILE.html)',
    needsConfig: true,
    checkArgs: async (argv) => (await import('./report.js')).checkReportArgs(argv),
    run: async (argv, ctx) => (await import('./report.js')).reportCommand(argv, ctx),
  },
  whoami: {
    summary: "the credential's identity and scopes, and which configured jobs they do not allow (--json)",
    needsConfig: true,
    run: async (argv, ctx) => (await import('./whoami.js')).whoamiCommand(argv, ctx),
  },
  queue: {
    state: (argv) => (argv[0] === 'list' ? 'read' : 'wait'),
    summary: 'enqueue writes (add-points, update-review, delete-review, create-order, claim-reward, import FILE.csv) and steer the queue (list, retry, cancel)',
    needsConfig: true,
    checkArgs: async (argv) => (await import('./queue.js')).parseQueueArgs(argv),
    run: async (argv, ctx) => (await import('./queue.js')).queueCommand(argv, ctx),
  },
  state: {
    summary: 'restore an older saved state of state.url into an empty folder, beside the live one (restore --as-of TIME [--to PATH])',
    needsConfig: true,
    run: async (argv, ctx) => (await import('./state.js')).stateCommand(argv, ctx),
  },
  simulate: {
    summary: 'serve the built-in API simulator on loopback (--port N --seed S --size S --profile P --faults SPEC)',
    needsConfig: false,
    run: async (argv) => (await import('./simulate.js')).simulateCommand(argv),
  },
  demo: {
    summary: 'start the simulator, run `once` against it, and print where the mirror and exports are, with example queries and queue writes (no key, no config; --dir DIR --size tiny|small|medium; --stateless runs it twice on a file:// state)',
    needsConfig: false,
    run: async (argv, ctx) => (await import('./demo.js')).demoCommand(argv, ctx),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  return [
    'Usage: loyalty-sync [--config FILE] <command> [options]',
    '',
    'Mirror a loyalty program (Admin API v2) into SQLite, push queued writes back exactly once,',
    'and export CSV/Parquet snapshots.',
    '',
    'Commands:',
    ...lines,
    '',
    'Run "loyalty-sync <command> --help" for the options of a command.',
    '',
    'Environment: LOYALTY_API_KEY, LOYALTY_BASE_URL, LOYALTY_DB, LOYALTY_EXPORT_DIR, LOYALTY_EXPORT_URL, LOYALTY_STATE_URL, LOYALTY_METRICS_LISTEN, LOYALTY_CONFIG, LOG_LEVEL;',
    'object storage: the AWS provider chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, web identity, roles), AWS_ENDPOINT_URL_S3, AWS_REGION.',
    'Exit codes: 0 success; 1 the job failed (API, I/O); 2 bad usage or bad config.',
    '',
  ].join('\n');
}

/** Pulls `--config FILE` / `--config=FILE` out of the arguments, wherever it stands. */
function extractConfigFlag(argv: string[]): { file?: string; rest: string[] } {
  const rest: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--config') {
      file = argv[i + 1];
      if (file === undefined || file.startsWith('--')) throw new UsageError('--config needs a file path, e.g. --config ./loyalty.json.');
      i += 1;
    } else if (arg.startsWith('--config=')) {
      file = arg.slice('--config='.length);
    } else {
      rest.push(arg);
    }
  }
  return { file, rest };
}

export async function main(argv: string[]): Promise<number> {
  const debug = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';
  let mirrorPath: string | undefined;
  try {
    const { file, rest } = extractConfigFlag(argv);
    const [name, ...commandArgs] = rest;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      (name === undefined ? process.stderr : process.stdout).write(usage());
      return name === undefined ? EXIT_USAGE : 0;
    }
    if (name === '--version' || name === '-v') {
      const { toolVersion } = await import('../version.js');
      process.stdout.write(`${toolVersion()}\n`);
      return 0;
    }
    const entry = COMMANDS[name];
    if (!entry) throw new UsageError(`Unknown command "${name}"; expected one of: ${Object.keys(COMMANDS).join(', ')}.`);
    // simulate and demo bring their own settings, so a half-configured environment cannot break them.
    const config = entry.needsConfig ? loadConfig({ file }) : loadConfig({ env: { LOG_LEVEL: process.env.LOG_LEVEL } });
    mirrorPath = config.db.path;
    const logger = createLogger({ level: config.log.level });
    const ctx: CommandContext = { config, logger, stdout: process.stdout, stderr: process.stderr };
    // Flags first, then the key: either refusal comes before any request to the bucket or the API.
    const asksForHelp = entry.checkArgs === undefined ? commandArgs.includes('--help') || commandArgs.includes('-h') : (await entry.checkArgs(commandArgs)).help;
    const callsApi = entry.callsApi?.(commandArgs) === true;
    if (!asksForHelp && callsApi) requireApiKey(ctx, name);
    const code = config.state.url !== '' && entry.state !== undefined && !asksForHelp ? await runWithState(name, entry.state(commandArgs), (withState) => entry.run(commandArgs, withState), ctx, callsApi) : await entry.run(commandArgs, ctx);
    logger.flush();
    return code;
  } catch (error) {
    if (error instanceof LockBusyError) {
      process.stderr.write(`loyalty-sync: ${error.message}\n`);
      return EXIT_FAILED;
    }
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`loyalty-sync: ${redact(error.message)}\n`);
      return EXIT_USAGE;
    }
    // SQLite says "database disk image is malformed" or "attempt to write a readonly database" without saying which file.
    const named = mirrorPath !== undefined && (isDamagedDatabase(error) || isReadOnlyDatabase(error)) ? mirrorError(mirrorPath, error) : error;
    process.stderr.write(`loyalty-sync: ${describeError(named)}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${redact(error.stack)}\n`);
    return EXIT_FAILED;
  }
}

const stdout = watchStdoutClosing(process.stdout);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = stdout.closed() && code === 0 ? EXIT_FAILED : code;
  },
  (error: unknown) => {
    process.stderr.write(`loyalty-sync: ${redact(String(error))}\n`);
    process.exitCode = EXIT_FAILED;
  },
);
