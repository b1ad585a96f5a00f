import type { Store } from './store.js';
import { DAY } from './time.js';
import type { BackdatedTransaction, BalanceMove } from './types.js';

/**
 * Moves customers' balances without writing a transaction: the one way the simulator breaks "every balance is the
 * sum of its transactions", so a reconciliation has a defect to find. Each customer's `updated_at` moves, as a
 * real service's would, so a sync reads the new balances. Throws a RangeError (and changes nothing) for an unknown
 * customer or a move of nothing.
 */
export function moveBalances(store: Store, moves: readonly BalanceMove[]): void {
  const customers = moves.map((move) => {
    if (!Number.isInteger(move.customerId)) throw new RangeError(`customerId must be an integer, got ${JSON.stringify(move.customerId)}.`);
    const customer = store.customers.find((candidate) => candidate.id === move.customerId && candidate.visibleAt <= store.tick);
    if (customer === undefined) throw new RangeError(`No visible customer with id ${move.customerId}.`);
    const approved = move.approved ?? 0;
    const pending = move.pending ?? 0;
    if (!Number.isInteger(approved) || !Number.isInteger(pending) || (approved === 0 && pending === 0)) {
      throw new RangeError(`Customer ${move.customerId}: approved and pending must be integers, not both 0.`);
    }
    return { customer, approved, pending };
  });
  const at = store.advanceClock(1);
  for (const { customer, approved, pending } of customers) {
    customer.pointsApproved += approved;
    customer.pointsPending += pending;
    store.touchCustomer(customer, at);
  }
}

/**
 * Writes a points import dated `daysAgo` days before the clock that becomes visible only now, with an id above
 * every other: a transaction committed late, which a ledger must place on its old day. The customer's balance
 * and `updated_at` move now. Returns the transaction's id.
 */
export function addBackdatedTransaction(store: Store, request: BackdatedTransaction): number {
  const customer = store.customers.find((candidate) => candidate.id === request.customerId && candidate.visibleAt <= store.tick);
  if (customer === undefined) throw new RangeError(`No visible customer with id ${request.customerId}.`);
  if (!Number.isInteger(request.points) || request.points <= 0) throw new RangeError(`points must be a positive integer, got ${JSON.stringify(request.points)}.`);
  if (typeof request.daysAgo !== 'number' || !(request.daysAgo > 0)) throw new RangeError(`daysAgo must be a positive number, got ${JSON.stringify(request.daysAgo)}.`);
  const now = store.advanceClock(1);
  const transaction = store.importPoints(customer, request.points, now - Math.round(request.daysAgo * DAY), store.tick);
  store.touchCustomer(customer, now);
  return transaction.id;
}
