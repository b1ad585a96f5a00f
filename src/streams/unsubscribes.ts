import { col, type StreamDefinition } from './types.js';

export const unsubscribes: StreamDefinition = {
  name: 'unsubscribes',
  endpoint: '/v2/loyalty_emails/unsubscribes',
  listKey: null,
  keyType: 'text',
  // No cursor and no filters: read the whole list, and tombstone what has left it.
  strategy: { kind: 'full-walk' },
  columns: [col('email', 'text')],
};
