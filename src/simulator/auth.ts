import { envelopeError } from './http.js';
import { Rng } from './random.js';

export const READ_SCOPES = ['read_customers', 'read_orders', 'read_activities', 'read_transactions', 'read_unsubscribes'] as const;
export const WRITE_SCOPES = ['write_orders', 'write_points', 'write_rewards', 'write_reviews'] as const;
export type Scope = (typeof READ_SCOPES)[number] | (typeof WRITE_SCOPES)[number];

export interface Credential {
  key: string;
  scopes: readonly Scope[];
}

export interface Keys {
  full: string;
  readOnly: string;
}

/** Keys derive from the seed, so a restarted simulator with the same seed accepts the same keys. */
export function makeKeys(seed: number): Keys {
  const rng = new Rng(seed ^ 0x5eed);
  return { full: `sim_full_${rng.hex(24)}`, readOnly: `sim_read_${rng.hex(24)}` };
}

export function credentials(keys: Keys): Map<string, Credential> {
  return new Map([
    [keys.full, { key: keys.full, scopes: [...READ_SCOPES, ...WRITE_SCOPES] }],
    [keys.readOnly, { key: keys.readOnly, scopes: [...READ_SCOPES] }],
  ]);
}

export function authenticate(header: string | undefined, known: Map<string, Credential>): Credential {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) throw envelopeError(401, 'Missing Authorization header; expected "Bearer <API key>".');
  const credential = known.get(match[1]);
  if (credential === undefined) throw envelopeError(401, 'The API key is not valid.', 'unauthorized');
  return credential;
}

export function requireScope(credential: Credential, scope: Scope): void {
  if (!credential.scopes.includes(scope)) {
    throw envelopeError(403, `This API key lacks the ${scope} scope.`, 'forbidden', { scope });
  }
}
