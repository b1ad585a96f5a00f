import type { Credential } from './auth.js';
import type { Ledger } from './ledger.js';
import type { Store } from './store.js';
import type { StreamDefs } from './streams.js';
import type { WallClock } from './time.js';
import type { PageOrder } from './types.js';

/** What a route handler may touch: one simulator's state, never a module-level singleton. */
export interface SimContext {
  store: Store;
  ledger: Ledger;
  streams: StreamDefs;
  pageOrder: PageOrder;
  /** Writes through the API are stamped with the time it reads when they are applied. */
  clock: WallClock;
  /** The program whoami names (the API key's program). */
  programId: number;
}

export interface RouteRequest {
  /** Decoded path parameters, in pattern order. */
  params: string[];
  query: URLSearchParams;
  body: string;
  credential: Credential;
}
