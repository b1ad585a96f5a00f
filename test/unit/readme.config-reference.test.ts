import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function leaves(node: Json, prefix = ''): Array<[string, Json]> {
  if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
    return Object.entries(node).flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key));
  }
  return [[prefix, node]];
}

describe('the README configuration reference', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const defaults = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as Json;
  const rows = new Map(
    [...readme.matchAll(/^\| `([a-zA-Z0-9.]+)` \| ([^|]+) \|/gm)].map((match) => [match[1], match[2].trim()]),
  );

  it('documents every key of config/default.json with its real default', () => {
    for (const [key, value] of leaves(defaults)) {
      expect(rows.has(key), `README lacks config key ${key}`).toBe(true);
      if (!Array.isArray(value)) expect(rows.get(key), `README default of ${key}`).toBe(`\`${String(value)}\``);
    }
  });

  it('documents no key that the config does not have', () => {
    const known = new Set(leaves(defaults).map(([key]) => key));
    const documented = [...rows.keys()].filter((key) => key.includes('.') && !key.startsWith('LOYALTY'));
    for (const key of documented) expect(known.has(key), `README documents unknown key ${key}`).toBe(true);
  });
});
