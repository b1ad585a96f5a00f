import type { Reply } from './http.js';
import { Rng } from './random.js';
import type { FaultSpec } from './types.js';

const RATES = ['rateLimited', 'rateLimitedNoRetryAfter', 'serverError', 'drop', 'truncate', 'applyThenDrop', 'stall'] as const;
const DURATIONS = ['latencyMs', 'stallMs'] as const;
const RETRY_AFTER_SECONDS = 1;

/** What happens to one request besides its normal handling. */
export interface FaultPlan {
  /** Answer this instead of handling the request. */
  reply: Reply | null;
  drop: boolean;
  /** Cut a GET's 200 body in half and destroy the socket. */
  truncate: boolean;
  /** A write that lands: apply it, then destroy the socket. */
  applyThenDrop: boolean;
  delayMs: number;
}

const KNOWN = new Set<string>([...RATES, ...DURATIONS, 'seed']);

/** Checks a spec that may come from JSON over the control route: numbers only, known names only. */
export function validateFaults(spec: Readonly<Record<string, unknown>>): FaultSpec {
  const checked: FaultSpec = {};
  for (const [name, value] of Object.entries(spec)) {
    if (!KNOWN.has(name)) throw new RangeError(`faults.${name} is not a fault; expected one of ${[...KNOWN].join(', ')}`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new RangeError(`faults.${name} must be a number, got ${JSON.stringify(value)}`);
    if ((RATES as readonly string[]).includes(name) && !(value >= 0 && value <= 1)) throw new RangeError(`faults.${name} must be a probability from 0 to 1, got ${value}`);
    if ((DURATIONS as readonly string[]).includes(name) && value < 0) throw new RangeError(`faults.${name} must be a non-negative number of milliseconds, got ${value}`);
    if (name === 'seed' && !Number.isInteger(value)) throw new RangeError(`faults.seed must be an integer, got ${value}`);
    checked[name as keyof FaultSpec] = value;
  }
  return checked;
}

/**
 * Draws faults from its own seeded sequence, separate from the data's, so turning faults on
 * never changes the data. Every request draws the same number of values, whatever it hits,
 * so a run is reproducible request by request.
 */
export class FaultInjector {
  private spec: FaultSpec = {};
  private rng: Rng;

  constructor(
    spec: FaultSpec | null,
    private readonly defaultSeed: number,
  ) {
    this.rng = new Rng(defaultSeed);
    this.set(spec);
  }

  set(spec: FaultSpec | null): void {
    this.spec = spec === null ? {} : validateFaults({ ...spec });
    this.rng = new Rng(this.spec.seed ?? this.defaultSeed);
  }

  current(): FaultSpec {
    return { ...this.spec };
  }

  plan(method: string, isWrite: boolean): FaultPlan {
    const s = this.spec;
    const draws = Array.from({ length: 9 }, () => this.rng.next());
    const plan: FaultPlan = { reply: null, drop: false, truncate: false, applyThenDrop: false, delayMs: s.latencyMs ?? 0 };
    if (draws[0] < (s.stall ?? 0)) plan.delayMs += s.stallMs ?? 0;
    if (draws[1] < (s.drop ?? 0)) plan.drop = true;
    else if (draws[2] < (s.rateLimited ?? 0)) plan.reply = rateLimited(true, true);
    else if (draws[3] < (s.rateLimitedNoRetryAfter ?? 0)) plan.reply = rateLimited(false, draws[7] < 0.5);
    else if (draws[4] < (s.serverError ?? 0)) plan.reply = serverError(draws[7], draws[8]);
    else if (method === 'GET' && draws[5] < (s.truncate ?? 0)) plan.truncate = true;
    else if (isWrite && draws[6] < (s.applyThenDrop ?? 0)) plan.applyThenDrop = true;
    return plan;
  }
}

export function rateLimited(withRetryAfter: boolean, withCode: boolean, retryAfterSeconds = RETRY_AFTER_SECONDS): Reply {
  const error: { message: string; code?: string } = { message: 'Too many requests; slow down.' };
  if (withCode) error.code = 'rate_limited';
  return { status: 429, body: JSON.stringify({ error }), headers: withRetryAfter ? { 'retry-after': String(retryAfterSeconds) } : {} };
}

/** 5xx the way proxies and crashing apps send them: JSON, an HTML page, or nothing at all. */
function serverError(statusDraw: number, bodyDraw: number): Reply {
  const status = statusDraw < 1 / 3 ? 500 : statusDraw < 2 / 3 ? 502 : 503;
  if (bodyDraw < 1 / 3) return { status, body: JSON.stringify({ error: { message: 'Internal server error', code: 'internal_error' } }) };
  if (bodyDraw < 2 / 3) return { status, body: `<html><head><title>${status}</title></head><body><h1>${status} Bad Gateway</h1></body></html>`, contentType: 'text/html' };
  return { status, body: '', contentType: '' };
}
