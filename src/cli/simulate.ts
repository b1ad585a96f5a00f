import { parseArgs } from 'node:util';
import { currentHour, PROFILE_NAMES, PROFILES, startSimulator } from '../simulator/index.js';
import type { FaultSpec, PageOrder, ProfileName, SizePreset } from '../simulator/index.js';

const SIZES: readonly SizePreset[] = ['tiny', 'small', 'medium', 'large'];
const PAGE_ORDERS: readonly PageOrder[] = ['newest-first', 'oldest-first'];
const RATE_FAULTS = ['rateLimited', 'rateLimitedNoRetryAfter', 'serverError', 'drop', 'truncate', 'applyThenDrop', 'stall'] as const;
const NUMBER_FAULTS = ['latencyMs', 'stallMs', 'seed'] as const;

const USAGE = `--port N, --host H, --seed S, --size tiny|small|medium|large, --profile ${PROFILE_NAMES.join('|')}, --page-order newest-first|oldest-first, --faults name=value[,name=value]`;

/** A usage mistake: one sentence for stderr, exit code 2. */
class UsageError extends Error {}

function integerFlag(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${flag} "${text}" is not valid: expected an integer from ${min} to ${max}.`);
  }
  return value;
}

function choiceFlag<T extends string>(flag: string, text: string | undefined, allowed: readonly T[]): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) throw new UsageError(`--${flag} "${text}" is not valid: expected one of ${allowed.join(', ')}.`);
  return text as T;
}

/** The profiles that take their counts from --size. */
function profilesTakingSize(): ProfileName[] {
  return PROFILE_NAMES.filter((name) => PROFILES[name].sizes === null);
}

/** `rateLimited=0.05,drop=0.01,latencyMs=20` → a FaultSpec. */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = {};
  for (const pair of text.split(',').filter((part) => part.trim() !== '')) {
    const [name, value, ...rest] = pair.split('=').map((part) => part.trim());
    const number = value === undefined || value === '' || rest.length > 0 ? NaN : Number(value);
    if ((RATE_FAULTS as readonly string[]).includes(name)) {
      if (!(number >= 0 && number <= 1)) throw new UsageError(`--faults "${pair}" is not valid: expected ${name}=P with P a probability from 0 to 1.`);
      spec[name as (typeof RATE_FAULTS)[number]] = number;
    } else if ((NUMBER_FAULTS as readonly string[]).includes(name)) {
      if (!(Number.isInteger(number) && number >= 0)) throw new UsageError(`--faults "${pair}" is not valid: expected ${name}=N with N a non-negative integer.`);
      spec[name as (typeof NUMBER_FAULTS)[number]] = number;
    } else {
      throw new UsageError(`--faults "${pair}" is not valid: expected name=value with name one of ${[...RATE_FAULTS, ...NUMBER_FAULTS].join(', ')}.`);
    }
  }
  return spec;
}

const HELP = `Usage: loyalty-sync simulate [--port N] [--host H] [--seed S] [--size tiny|small|medium|large]
                             [--profile ${PROFILE_NAMES.join('|')}] [--page-order newest-first|oldest-first] [--faults SPEC]

Serves the built-in Admin API simulator on loopback until SIGINT/SIGTERM, and prints its address,
a full key and a read-only key, and the /__sim control routes (tick, age-changes, faults, ledger, truth, stats).
Defaults: port 8787 (the config's default base URL), host 127.0.0.1, seed 1, size medium,
profile full, newest-first pages. The data end at the current hour.

--profile shapes the simulated program, as real programs differ:
${PROFILE_NAMES.map((name) => `  ${name.padEnd(7)}${PROFILES[name].description}`).join('\n')}
${PROFILE_NAMES.filter((name) => PROFILES[name].sizes !== null).join(' and ')} fix the counts, so they take no --size.

--faults takes comma-separated name=value pairs: rates from 0 to 1 per request for
${RATE_FAULTS.join(', ')}, and whole numbers for ${NUMBER_FAULTS.join(', ')}.
Example: --faults rateLimited=0.05,serverError=0.02,drop=0.01,latencyMs=20
`;

/**
 * `loyalty-sync simulate`: serves the API simulator on loopback until SIGINT/SIGTERM.
 * Returns the exit code: 0 after a clean stop, 2 for bad usage.
 */
export async function simulateCommand(argv: string[]): Promise<number> {
  let options: Parameters<typeof startSimulator>[0];
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        size: { type: 'string' },
        profile: { type: 'string' },
        'page-order': { type: 'string' },
        faults: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    const profile = choiceFlag('profile', values.profile, PROFILE_NAMES) ?? 'full';
    const size = choiceFlag('size', values.size, SIZES);
    const countsFixed = PROFILES[profile].sizes !== null;
    if (countsFixed && size !== undefined) throw new UsageError(`--size "${size}" cannot be combined with --profile ${profile}, which fixes the counts: leave --size out, or use --profile ${profilesTakingSize().join(' or ')}.`);
    options = {
      port: integerFlag('port', values.port, 0, 65_535) ?? 8787,
      host: values.host ?? '127.0.0.1',
      seed: integerFlag('seed', values.seed, 0, 2 ** 31 - 1),
      size: countsFixed ? undefined : (size ?? 'medium'),
      profile,
      // Data dated up to the current hour, so a worker on a real clock sees recent records, and writes
      // stamped with the real time they were applied, so it can find them again by time.
      epoch: currentHour(),
      clock: Date.now,
      pageOrder: choiceFlag('page-order', values['page-order'], PAGE_ORDERS),
      faults: values.faults === undefined ? undefined : parseFaultSpec(values.faults),
    };
  } catch (error) {
    // parseArgs throws TypeErrors with an ERR_PARSE_ARGS_* code for unknown flags and missing values.
    const parseError = error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
    if (!(error instanceof UsageError) && !parseError) throw error;
    const message = error instanceof UsageError ? error.message : `${(error as Error).message.split('. ')[0].replace(/\.$/, '')}; expected ${USAGE}.`;
    process.stderr.write(`${message}\n`);
    return 2;
  }

  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator(options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`The simulator could not start on ${options.host}:${options.port}: ${message}\n`);
    return 1;
  }
  const control = `${sim.url}/__sim`;
  process.stdout.write(
    [
      `API simulator listening on ${sim.url} (API under ${sim.url}/v2, profile ${String(options.profile)}${options.size === undefined ? '' : `, size ${String(options.size)}`}, seed ${options.seed ?? 1})`,
      `  full key:      ${sim.keys.full}`,
      `  read-only key: ${sim.keys.readOnly}`,
      `  control:       POST ${control}/tick {"steps":N}   POST ${control}/age-changes {"refund":{"count":N,"minAgeDays":D}}`,
      `                 PUT|DELETE ${control}/faults   PUT ${control}/page-order {"order":"oldest-first"}`,
      `                 PUT|DELETE ${control}/rate-limit {"requestsPerSecond":N,"burst":N}   GET ${control}/ledger   GET ${control}/truth/STREAM   GET ${control}/stats`,
      `  try: LOYALTY_BASE_URL=${sim.url} LOYALTY_API_KEY=${sim.keys.full} npx loyalty-sync whoami`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (name: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(name);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await sim.close();
  process.stdout.write(`Simulator stopped (${signal}).\n`);
  return 0;
}
