/** Public contract of the simulator: other modules, tests and benchmarks code against these shapes. */

export type StreamName = 'customers' | 'orders' | 'activities' | 'transactions' | 'unsubscribes';

export const STREAM_NAMES: readonly StreamName[] = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'];

export interface DataSizes {
  customers: number;
  orders: number;
  activities: number;
  /** At least the transactions implied by activities; extra ones are fine. */
  transactions: number;
  reviews: number;
  rewards: number;
  unsubscribes: number;
}

/** tiny ≈ 20-50 rows/stream, small ≈ 1-3k, medium ≈ 20-50k, large ≈ 1M transactions. */
export type SizePreset = 'tiny' | 'small' | 'medium' | 'large';

/**
 * The shape of the simulated program (see profiles.ts): `full` uses every feature; `bare` leaves every
 * optional field absent or null on every record; `empty` starts with every stream empty; `single` has one customer.
 */
export type ProfileName = 'full' | 'bare' | 'empty' | 'single';

export type PageOrder = 'newest-first' | 'oldest-first';

/** Each rate is a probability 0..1 per request, drawn from a seeded PRNG. */
export interface FaultSpec {
  /** 429 `{error:{message, code:'rate_limited'}}` with a Retry-After header. */
  rateLimited?: number;
  /** 429 without Retry-After, sometimes without a code. */
  rateLimitedNoRetryAfter?: number;
  /** 500/502/503, sometimes with an HTML or empty body. */
  serverError?: number;
  /** Destroy the socket without any answer, before applying anything. */
  drop?: number;
  /** 200 with a body cut off halfway (GET only), then the socket is destroyed. */
  truncate?: number;
  /** Non-idempotent writes and review writes: apply, record in the ledger, then destroy the socket. */
  applyThenDrop?: number;
  /** Delay added before answering. */
  latencyMs?: number;
  /** With probability `stall`, wait `stallMs` before sending headers. */
  stallMs?: number;
  stall?: number;
  seed?: number;
}

/**
 * Records beyond the spec, served on demand so that a client's schema drift detection can be tested.
 * Off by default: the generated data otherwise stay as they are.
 */
export interface ServedDrift {
  /** Every order carries `customer_note`, a field the spec does not list (its text names the customer's email). */
  unlistedField?: boolean;
  /** Every third order (by id) has payment_status `authorized`, outside the spec's not_paid, partially_paid, paid. */
  unlistedEnumValue?: boolean;
}

export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0, a free port. */
  port?: number;
  /** Default 1; the same seed (and epoch) gives the same data. */
  seed?: number;
  /**
   * The simulated "now" at tick 0, in ms since 1970; the generated orders and activities cover the
   * 90 days before it, customers the 180 days before it. Default SIMULATED_EPOCH, a fixed date, so tests are reproducible; `demo` and
   * `simulate` pass the current hour so the data look recent to a worker on a real clock.
   */
  epoch?: number;
  /**
   * The wall clock, in ms since 1970: a write through the API is stamped with the time it reads when the
   * write is applied (or just after the last tick's end, when ticks ran ahead of it), and every answer's
   * Date header shows that simulated time. Default: a clock that reads `epoch` at start and runs at real
   * speed; `simulate` and `demo` pass the real clock, so writes carry the real time they were applied.
   */
  clock?: () => number;
  /** The program whoami names; default PROGRAM_ID (4242). Another program's API, for a state bound to its own. */
  programId?: number;
  /** Default 'small'. Not with the profiles `empty` and `single`, which fix the counts. */
  size?: SizePreset | Partial<DataSizes>;
  /** Default 'full'. */
  profile?: ProfileName;
  /** Order of pages when no since_id is given; default newest-first. */
  pageOrder?: PageOrder;
  faults?: FaultSpec;
  /** Token bucket enforced by the server: over the limit → 429 rate_limited with Retry-After. */
  rateLimit?: RateLimit | null;
  /** Serve fields and enum values the spec does not list; default none. */
  servedDrift?: ServedDrift;
}

export type LedgerKind = 'add_points' | 'create_order' | 'claim_reward' | 'update_review' | 'delete_review';

export interface LedgerEntry {
  seq: number;
  at: string;
  kind: LedgerKind;
  /** Customer merchant_id, order merchant_id, or `${platform}/${merchant_id}`. */
  target: string;
  body: unknown;
  /** Short description, e.g. 'deleted' or 'already deleted'. */
  effect: string;
}

export interface SimulatorStats {
  requests: number;
  byStatus: Record<string, number>;
  /** API requests per path (`/v2/orders`, `/v2/orders/1001`, …), however they were answered. */
  byPath: Record<string, number>;
  faultsInjected: number;
}

/** How many records of one kind to change, and how old each must be (by created_at, on the simulator's clock). */
export interface AgedPick {
  count: number;
  minAgeDays: number;
  /** Default: no upper bound. */
  maxAgeDays?: number;
}

/**
 * Old records to change on purpose (`changeOldRecords`, `POST /__sim/age-changes`): `approve` pending
 * activities, `void` approved or pending ones that earned points, `refund` what is left on orders,
 * `edit` customers. Records are drawn from the seeded sequence among the visible ones of that age.
 */
export interface OldRecordChangeRequest {
  approve?: AgedPick;
  void?: AgedPick;
  refund?: AgedPick;
  edit?: AgedPick;
}

/** What `changeOldRecords` changed, by id ascending per kind. */
export interface OldRecordChanges {
  /** The simulator's clock the ages were measured against. */
  clock: string;
  /** Activity ids, each now `approved`, with a new transaction. */
  approved: number[];
  /** Activity ids, each now `void`, with a new transaction. */
  voided: number[];
  /** Order ids, refunded in full (no transaction: a refund moves no points). */
  refunded: number[];
  /** Customer ids, edited without points moving. */
  edited: number[];
  /** The new transactions (approvals' and voids'), by id ascending. */
  transactions: number[];
}

/** A move of one customer's balances without a transaction (`moveBalances`, `POST /__sim/ledger-drift`). */
export interface BalanceMove {
  customerId: number;
  /** Points added to the approved balance (negative: taken); default 0. */
  approved?: number;
  pending?: number;
}

/** A points import dated in the past that becomes visible now (`addBackdatedTransaction`, `POST /__sim/backdated-transaction`). */
export interface BackdatedTransaction {
  customerId: number;
  points: number;
  /** How long before the simulator's clock its created_at lies. */
  daysAgo: number;
}

export interface SimulatorHandle {
  /** Base address, e.g. http://127.0.0.1:41234; every API path is /v2/... under it. */
  url: string;
  /** full has every scope; readOnly has only the read scopes. */
  keys: { full: string; readOnly: string };
  /** Moves the simulated clock one hour per step and makes the data change like a live program. */
  tick(steps?: number): void;
  /** Changes old records on purpose; a RangeError (and no change) when the request is invalid or too few records are that old. */
  changeOldRecords(request: OldRecordChangeRequest): OldRecordChanges;
  /** Moves balances without a transaction, breaking "balance = sum of transactions" for those customers on purpose. */
  moveBalances(moves: readonly BalanceMove[]): void;
  /** Adds a points import with an old created_at that is visible only from now on; returns its id. */
  addBackdatedTransaction(request: BackdatedTransaction): number;
  setFaults(spec: FaultSpec | null): void;
  setPageOrder(order: PageOrder): void;
  setRateLimit(limit: RateLimit | null): void;
  /** Starts (or, with null, stops) serving fields and enum values the spec does not list. */
  setServedDrift(drift: ServedDrift | null): void;
  /** Every applied write, in order. */
  ledger(): LedgerEntry[];
  /** Every visible record, as the list endpoint serialises it, sorted by id ascending. */
  truth(stream: StreamName): unknown[];
  stats(): SimulatorStats;
  close(): Promise<void>;
}
