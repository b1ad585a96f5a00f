import { AWKWARD_DISPLAY_NAME, FIRST_NAMES, INSIGHT_SEGMENTS, LAST_NAMES, NOTES } from './catalog.js';
import { Customer } from './model.js';
import type { Store } from './store.js';

function asciiSlug(text: string, fallback: string): string {
  const slug = text.normalize('NFKD').replace(/[^A-Za-z]/g, '').toLowerCase();
  return slug.length > 0 ? slug : fallback;
}

/**
 * A new customer with every field of the spec's customer table; the optional fields are
 * left out on some customers, and some carry a field the spec does not list. What the program's
 * features leave out is absent (or null) on every customer.
 */
export function makeCustomer(store: Store, at: number, visibleAt: number, given?: { merchantId: string; email: string; guest: boolean }): Customer {
  const rng = store.rng;
  const id = store.newId('customer');
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const merchantId = given?.merchantId ?? String(6_830_000_000 + id * 13);
  const tag = rng.chance(0.1) ? '+loyalty' : '';
  const email = given?.email ?? `${asciiSlug(first, 'cust')}.${asciiSlug(last, 'omer')}${id}${tag}@example.com`;
  const customer = new Customer(id, merchantId, email, given?.guest ?? rng.chance(0.08), at, visibleAt);
  const displayName = store.customers.length === 0 ? AWKWARD_DISPLAY_NAME : `${first} ${last}`;
  // Each draw is skipped when its feature is off, so the full profile draws exactly as before profiles existed.
  const has = store.features;
  customer.properties =
    has.customerDetails && rng.chance(0.3)
      ? { first_name: first, last_name: last, display_name: displayName, notes: rng.pick(NOTES) }
      : { first_name: first, last_name: last, display_name: displayName };
  customer.blocked = rng.chance(0.03);
  customer.enrolled = !customer.guest && rng.chance(0.92);
  if (has.referrals && store.customers.length > 0 && rng.chance(0.15)) {
    const referrer = rng.pick(store.customers);
    customer.referredBy = { id: referrer.id, merchant_id: referrer.merchantId };
  }
  if (has.insights && rng.chance(0.7)) customer.insightsSegment = rng.pick(INSIGHT_SEGMENTS);
  if (has.loyaltyPasses && rng.chance(0.6)) customer.loyaltyPass = { url: `https://pass.loyalty.example/p/${rng.hex(12)}`, installed: rng.chance(0.4) };
  if (has.customerDetails) {
    customer.birthday = rng.chance(0.75) ? `${rng.int(1950, 2006)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}` : '';
    customer.linkedMerchantIds = rng.chance(0.1) ? [String(9_100_000 + id), `legacy-${id}`] : [];
    if (rng.chance(0.12)) customer.extra = { marketing_consent: { email: rng.chance(0.5), sms: false } };
  }
  if (!has.tiers) customer.tierIndex = null;
  else if (rng.chance(0.01)) customer.tierIndex = 3;
  store.addCustomer(customer);
  return customer;
}

/**
 * Picks a customer who existed at `at`. Customers are created in time order, so the ones
 * created by then form a prefix of the array.
 */
export function pickCustomerAt(store: Store, at: number): Customer {
  const customers = store.customers;
  let low = 0;
  let high = customers.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (customers[mid].createdAt <= at) low = mid + 1;
    else high = mid;
  }
  return customers[Math.floor(store.rng.next() * Math.max(1, low))];
}

/** A change that moves no points: a profile edit, and for a registered customer, an enrolment. */
export function editCustomer(store: Store, customer: Customer, at: number): void {
  // A registered customer who joins now is enrolled from now on, whatever they earned before (as a real program records it).
  if (!customer.guest && !customer.enrolled) customer.enrolledAt = at;
  customer.enrolled = customer.guest ? customer.enrolled : true;
  customer.properties = { ...customer.properties, last_profile_edit: `edit ${store.tick}` };
  store.touchCustomer(customer, at);
}
