import { envelopeError, json, parseJsonObject } from './http.js';
import type { Reply } from './http.js';
import type { BackdatedTransaction, BalanceMove, FaultSpec, LedgerEntry, OldRecordChanges, PageOrder, SimulatorStats, StreamName } from './types.js';
import { STREAM_NAMES } from './types.js';

/** The in-process control surface the `/__sim` routes drive from another process. */
export interface Controls {
  tick(steps: number): void;
  changeOldRecords(request: Readonly<Record<string, unknown>>): OldRecordChanges;
  moveBalances(moves: readonly BalanceMove[]): void;
  addBackdatedTransaction(request: BackdatedTransaction): number;
  faults(): FaultSpec;
  setFaults(spec: Readonly<Record<string, unknown>> | null): void;
  setPageOrder(order: PageOrder): void;
  setRateLimit(limit: { requestsPerSecond?: unknown; burst?: unknown } | null): void;
  setServedDrift(drift: Readonly<Record<string, unknown>> | null): void;
  ledger(): LedgerEntry[];
  truth(stream: StreamName): unknown[];
  stats(): SimulatorStats;
}

function isStream(name: string): name is StreamName {
  return (STREAM_NAMES as readonly string[]).includes(name);
}

/** A bad control request is a programming error in a test or script: say exactly what was wrong. */
function guard(action: () => unknown): Reply {
  let result: unknown;
  try {
    result = action();
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) throw envelopeError(400, error.message, 'invalid_control');
    throw error;
  }
  return json(200, result ?? { ok: true });
}

/**
 * `/__sim/...`: POST tick {"steps":n}; POST age-changes {"approve"|"void"|"refund"|"edit": {"count","minAgeDays","maxAgeDays"?}}
 * (answers what changed); POST ledger-drift {"moves": [{"customerId","approved","pending"}]}; POST backdated-transaction
 * {"customerId","points","daysAgo"} (answers {"id"}); GET|PUT|DELETE faults; PUT page-order {"order"};
 * PUT|DELETE rate-limit; PUT|DELETE schema-drift {"unlistedField","unlistedEnumValue"}; GET ledger; GET truth/{stream}; GET stats. No auth: loopback only.
 */
export function controlRoute(controls: Controls, method: string, path: string, body: string): Reply {
  const route = `${method} ${path}`;
  switch (route) {
    case 'POST /__sim/tick': {
      const steps = parseJsonObject(body, false).steps ?? 1;
      if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1) throw envelopeError(400, 'steps must be an integer >= 1.', 'invalid_control');
      controls.tick(steps);
      return json(200, { ok: true });
    }
    case 'POST /__sim/age-changes':
      return guard(() => controls.changeOldRecords(parseJsonObject(body, true)));
    case 'POST /__sim/ledger-drift': {
      const moves = parseJsonObject(body, true).moves;
      if (!Array.isArray(moves)) throw envelopeError(400, 'moves must be an array of {"customerId", "approved", "pending"}.', 'invalid_control');
      return guard(() => controls.moveBalances(moves as BalanceMove[]));
    }
    case 'POST /__sim/backdated-transaction':
      return guard(() => ({ id: controls.addBackdatedTransaction(parseJsonObject(body, true) as unknown as BackdatedTransaction) }));
    case 'GET /__sim/faults':
      return json(200, controls.faults());
    case 'PUT /__sim/faults':
      return guard(() => controls.setFaults(parseJsonObject(body, true)));
    case 'DELETE /__sim/faults':
      return guard(() => controls.setFaults(null));
    case 'PUT /__sim/page-order': {
      const order = parseJsonObject(body, true).order;
      if (order !== 'newest-first' && order !== 'oldest-first') throw envelopeError(400, 'order must be newest-first or oldest-first.', 'invalid_control');
      return guard(() => controls.setPageOrder(order));
    }
    case 'PUT /__sim/rate-limit':
      return guard(() => controls.setRateLimit(parseJsonObject(body, true)));
    case 'DELETE /__sim/rate-limit':
      return guard(() => controls.setRateLimit(null));
    case 'PUT /__sim/schema-drift':
      return guard(() => controls.setServedDrift(parseJsonObject(body, true)));
    case 'DELETE /__sim/schema-drift':
      return guard(() => controls.setServedDrift(null));
    case 'GET /__sim/ledger':
      return json(200, controls.ledger());
    case 'GET /__sim/stats':
      return json(200, controls.stats());
  }
  const truth = /^GET \/__sim\/truth\/([a-z]+)$/.exec(route);
  if (truth !== null && isStream(truth[1])) return json(200, controls.truth(truth[1]));
  throw envelopeError(404, `No control route ${route}.`, 'not_found');
}
