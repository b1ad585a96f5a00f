import type { Row } from './model.js';
import { refundOrder } from './orders.js';
import { editCustomer } from './people.js';
import type { Store } from './store.js';
import { DAY, iso, SECOND } from './time.js';
import type { AgedPick, OldRecordChanges, OldRecordChangeRequest } from './types.js';

const KINDS = ['approve', 'void', 'refund', 'edit'] as const;
const PICK_FIELDS = ['count', 'minAgeDays', 'maxAgeDays'] as const;

/** Checks a request that may come from JSON over the control route; each mistake is one sentence naming the field. */
export function validateOldRecordChanges(spec: Readonly<Record<string, unknown>>): OldRecordChangeRequest {
  const checked: OldRecordChangeRequest = {};
  for (const [kind, value] of Object.entries(spec)) {
    if (!(KINDS as readonly string[]).includes(kind)) throw new RangeError(`age-changes.${kind} is not a kind of change; expected one of ${KINDS.join(', ')}.`);
    if (value === undefined) continue;
    checked[kind as (typeof KINDS)[number]] = validatePick(`age-changes.${kind}`, value);
  }
  if (Object.keys(checked).length === 0) throw new RangeError(`age-changes needs at least one of ${KINDS.join(', ')}, e.g. {"approve":{"count":2,"minAgeDays":45}}.`);
  return checked;
}

function validatePick(name: string, value: unknown): AgedPick {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RangeError(`${name} must be an object like {"count":2,"minAgeDays":45}, got ${JSON.stringify(value)}.`);
  }
  const fields = value as Record<string, unknown>;
  for (const field of Object.keys(fields)) {
    if (!(PICK_FIELDS as readonly string[]).includes(field)) throw new RangeError(`${name}.${field} is not a field; expected ${PICK_FIELDS.join(', ')}.`);
  }
  const { count, minAgeDays, maxAgeDays } = fields;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) throw new RangeError(`${name}.count must be an integer >= 1, got ${JSON.stringify(count)}.`);
  if (typeof minAgeDays !== 'number' || !Number.isFinite(minAgeDays) || minAgeDays < 0) {
    throw new RangeError(`${name}.minAgeDays must be a number of days >= 0, got ${JSON.stringify(minAgeDays)}.`);
  }
  if (maxAgeDays === undefined) return { count, minAgeDays };
  if (typeof maxAgeDays !== 'number' || !Number.isFinite(maxAgeDays) || maxAgeDays <= minAgeDays) {
    throw new RangeError(`${name}.maxAgeDays must be a number of days above minAgeDays (${minAgeDays}), got ${JSON.stringify(maxAgeDays)}.`);
  }
  return { count, minAgeDays, maxAgeDays };
}

interface Aged extends Row {
  createdAt: number;
}

/**
 * `pick.count` rows drawn from the store's seeded sequence among the visible ones that pass `eligible`
 * and whose age on the simulator's clock lies in the asked range, or a RangeError saying how many there are.
 */
function pickOld<T extends Aged>(store: Store, rows: readonly T[], pick: AgedPick | undefined, name: string, what: string, eligible: (row: T) => boolean): T[] {
  if (pick === undefined) return [];
  const newest = store.now - pick.minAgeDays * DAY;
  const oldest = pick.maxAgeDays === undefined ? -Infinity : store.now - pick.maxAgeDays * DAY;
  const candidates = rows.filter((row) => row.visibleAt <= store.tick && row.createdAt <= newest && row.createdAt >= oldest && eligible(row));
  if (candidates.length < pick.count) {
    const ages = pick.maxAgeDays === undefined ? `${pick.minAgeDays} or more days` : `${pick.minAgeDays} to ${pick.maxAgeDays} days`;
    throw new RangeError(`${name} asks for ${pick.count} ${what} ${ages} old at ${iso(store.now)}, but the simulator has ${candidates.length}.`);
  }
  // A partial Fisher-Yates shuffle: the first `count` places end up a uniform draw.
  for (let i = 0; i < pick.count; i++) {
    const j = store.rng.int(i, candidates.length - 1);
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  return candidates.slice(0, pick.count).sort((a, b) => a.id - b.id);
}

/**
 * Changes old records on purpose, the way a live program does months after creating them: approvals
 * after a long pending period, late voids (each with its transaction), refunds of all that is left on old orders (no
 * transaction), edits of old customers. Every record is picked, and every count checked, before
 * anything changes, so a request that cannot be met changes nothing.
 */
export function changeOldRecords(store: Store, request: OldRecordChangeRequest): OldRecordChanges {
  const clock = iso(store.now);
  const toApprove = pickOld(store, store.activities, request.approve, 'age-changes.approve', 'pending activities', (a) => a.state === 'pending');
  const approving = new Set(toApprove);
  const toVoid = pickOld(
    store,
    store.activities,
    request.void,
    'age-changes.void',
    'approved or pending activities that earned points',
    (a) => (a.state === 'approved' || a.state === 'pending') && a.value > 0 && !approving.has(a),
  );
  const toRefund = pickOld(store, store.orders, request.refund, 'age-changes.refund', 'orders with paid money left to refund', (o) => !o.cancelled && o.paidCents > o.refundedCents());
  const toEdit = pickOld(store, store.customers, request.edit, 'age-changes.edit', 'customers', () => true);

  const transactionsBefore = store.transactions.length;
  for (const activity of toApprove) store.approveActivity(activity, store.advanceClock(SECOND), store.tick);
  for (const activity of toVoid) store.voidActivity(activity, store.advanceClock(SECOND), store.tick);
  for (const order of toRefund) refundOrder(order, store.advanceClock(SECOND), true, false);
  for (const customer of toEdit) editCustomer(store, customer, store.advanceClock(SECOND));
  return {
    clock,
    approved: toApprove.map((a) => a.id),
    voided: toVoid.map((a) => a.id),
    refunded: toRefund.map((o) => o.id),
    edited: toEdit.map((c) => c.id),
    transactions: store.transactions.slice(transactionsBefore).map((t) => t.id),
  };
}
