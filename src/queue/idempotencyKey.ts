import { createHash } from 'node:crypto';
import type { JobKind, JobPayload } from './types.js';

/** JSON with object keys sorted at every level, so equal payloads give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The key of a write given without `--key`: the same kind and payload give the same key, so
 * running the same command twice queues one job. `occurrence` tells apart identical rows of
 * one imported file (the first occurrence gets the same key as the command line would).
 */
export function deriveKey(kind: JobKind, payload: JobPayload, occurrence = 0): string {
  const hash = createHash('sha256').update(kind).update('\n').update(canonicalJson(payload));
  if (occurrence > 0) hash.update(`\n#${occurrence}`);
  return `derived:${hash.digest('hex')}`;
}
