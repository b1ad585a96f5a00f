import type { ListName } from '../api/client.js';

/**
 * The query that lists a stream by ascending id from `since`. Customers can be sorted by id or by
 * updated_at, and the spec does not say which is the default: a page by updated_at is no unbroken run of
 * ids, so verify's id spans would take the rows between for extras. The other lists have only id order.
 */
export function byIdSince(list: ListName, since: number): { since_id: number; sort_field?: 'id'; sort_direction?: 'asc' } {
  return list === 'customers' ? { since_id: since, sort_field: 'id', sort_direction: 'asc' } : { since_id: since };
}
