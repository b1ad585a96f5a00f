import { authenticate, requireScope } from '../auth.js';
import type { Credential, Scope } from '../auth.js';
import type { RouteRequest, SimContext } from '../context.js';
import { envelopeError } from '../http.js';
import type { Reply } from '../http.js';
import { addPoints, claimReward } from './customers.js';
import { listRoute } from './lists.js';
import { listUnsubscribes, whoami } from './misc.js';
import { createOrder, getOrder } from './orders.js';
import { deleteReview, updateReview } from './reviews.js';

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  pattern: RegExp;
  scope: Scope | null;
  handle(ctx: SimContext, request: RouteRequest): Reply;
}

const SEGMENT = '([^/]+)';

/** Every endpoint of the spec, as data. */
const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/v2\/orders$/, scope: 'read_orders', handle: (ctx, r) => listRoute(ctx.streams.orders, ctx.store, r.query, ctx.pageOrder) },
  { method: 'POST', pattern: /^\/v2\/orders$/, scope: 'write_orders', handle: createOrder },
  { method: 'GET', pattern: new RegExp(`^/v2/orders/${SEGMENT}$`), scope: 'read_orders', handle: getOrder },
  { method: 'GET', pattern: /^\/v2\/customers$/, scope: 'read_customers', handle: (ctx, r) => listRoute(ctx.streams.customers, ctx.store, r.query, ctx.pageOrder) },
  { method: 'POST', pattern: new RegExp(`^/v2/customers/${SEGMENT}/points$`), scope: 'write_points', handle: addPoints },
  { method: 'POST', pattern: new RegExp(`^/v2/customers/${SEGMENT}/claimed_rewards$`), scope: 'write_rewards', handle: claimReward },
  { method: 'GET', pattern: /^\/v2\/activities$/, scope: 'read_activities', handle: (ctx, r) => listRoute(ctx.streams.activities, ctx.store, r.query, ctx.pageOrder) },
  { method: 'GET', pattern: /^\/v2\/transactions$/, scope: 'read_transactions', handle: (ctx, r) => listRoute(ctx.streams.transactions, ctx.store, r.query, ctx.pageOrder) },
  { method: 'GET', pattern: /^\/v2\/identity\/whoami$/, scope: null, handle: whoami },
  { method: 'GET', pattern: /^\/v2\/loyalty_emails\/unsubscribes$/, scope: 'read_unsubscribes', handle: listUnsubscribes },
  { method: 'PUT', pattern: new RegExp(`^/v2/reviews/${SEGMENT}/${SEGMENT}$`), scope: 'write_reviews', handle: updateReview },
  { method: 'DELETE', pattern: new RegExp(`^/v2/reviews/${SEGMENT}/${SEGMENT}$`), scope: 'write_reviews', handle: deleteReview },
];

interface Matched {
  route: Route;
  params: string[];
}

/** The route for a path; 404 for an unknown path, 405 for a known path with another method. */
function matchRoute(method: string, path: string): Matched {
  let pathKnown = false;
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (match === null) continue;
    pathKnown = true;
    if (route.method !== method) continue;
    let params: string[];
    try {
      params = match.slice(1).map((segment) => decodeURIComponent(segment));
    } catch {
      throw envelopeError(400, 'The path holds a malformed percent-encoding.', 'invalid_parameter');
    }
    return { route, params };
  }
  if (pathKnown) throw envelopeError(405, `${method} is not allowed on ${path}.`, 'method_not_allowed');
  throw envelopeError(404, `No endpoint ${method} ${path}.`, 'not_found');
}

/** Authentication comes before routing, so an unknown path without a key is a 401, as on most real services. */
export function dispatch(ctx: SimContext, known: Map<string, Credential>, method: string, url: URL, authorization: string | undefined, body: string): Reply {
  const credential = authenticate(authorization, known);
  const matched = matchRoute(method, url.pathname);
  if (matched.route.scope !== null) requireScope(credential, matched.route.scope);
  return matched.route.handle(ctx, { params: matched.params, query: url.searchParams, body, credential });
}
