import { ACCOUNT_ID } from '../catalog.js';
import type { RouteRequest, SimContext } from '../context.js';
import type { Reply } from '../http.js';
import { QueryReader } from '../params.js';

const UNSUBSCRIBES_DEFAULT_LIMIT = 100;

/** GET /v2/identity/whoami: the API key variant of the identity. */
export function whoami(ctx: SimContext, request: RouteRequest): Reply {
  const identity = { kind: 'api_key', account_id: ACCOUNT_ID, program_id: ctx.programId, scopes: request.credential.scopes, integration: null };
  return { status: 200, body: JSON.stringify({ identity }) };
}

/** GET /v2/loyalty_emails/unsubscribes: a bare array paged by page and limit; no cursor exists here. */
export function listUnsubscribes(ctx: SimContext, request: RouteRequest): Reply {
  const query = new QueryReader(request.query, true);
  const limit = query.integer('limit', 1, 500) ?? UNSUBSCRIBES_DEFAULT_LIMIT;
  const page = query.integer('page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const start = (page - 1) * limit;
  return { status: 200, body: JSON.stringify(ctx.store.unsubscribes.slice(start, start + limit)) };
}
